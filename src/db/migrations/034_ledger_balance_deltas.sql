-- Hot accounts (issue 30): a transfer no longer locks the accounts it credits.
--
-- Until now every entry's trigger updated its account's balance row, so each deposit completion
-- held, until it committed, the row of caja's one `settlement` account of the currency (every
-- merchant's completions queued on it), its `fee_revenue` row, and the merchant's `available` and
-- `fees` rows. Now only an entry that could break a rule takes its account's row: a debit of an
-- `available` balance, which must not go below zero. Every other entry (credits to available,
-- and any entry of every other kind, which no rule bounds) is appended to ledger_balance_deltas,
-- which nobody locks; the balance is the account's row plus its deltas (the ledger_balances view).
--
-- Deltas are folded into the row (deleted and added, in one transaction, so a reader's snapshot
-- sees either both or neither):
--   * by a debit of an available balance, before it is checked: it locks the row first, then
--     folds every delta committed by then, so the check sees every credit that has committed; a
--     credit still in flight is not counted, which can only refuse a debit, never let one
--     overspend (deltas of an available account are all credits);
--   * by the deposit worker, a batch of accounts at a time (src/ledger/ledger.ts foldDeltas),
--     skipping accounts a debit holds, so reads stay a few rows.
-- Everyone who deletes an account's deltas holds its row lock first, so no delta is added twice.
CREATE TABLE ledger_balance_deltas (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES ledger_accounts(id),
  amount numeric NOT NULL
);
CREATE INDEX ledger_balance_deltas_account_idx ON ledger_balance_deltas (account_id);

CREATE OR REPLACE FUNCTION ledger_apply_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.amount < 0 AND EXISTS (SELECT 1 FROM ledger_accounts WHERE id = NEW.account_id AND kind = 'available') THEN
    -- The lock first: the fold below then sees every delta committed before it was granted. NO KEY
    -- UPDATE, the lock an UPDATE of the balance takes: entries of transfers in flight hold KEY SHARE
    -- on their accounts (their foreign key), which it does not wait for (FOR UPDATE would).
    PERFORM 1 FROM ledger_accounts WHERE id = NEW.account_id FOR NO KEY UPDATE;
    WITH folded AS (DELETE FROM ledger_balance_deltas WHERE account_id = NEW.account_id RETURNING amount)
    UPDATE ledger_accounts SET balance = balance + NEW.amount + coalesce((SELECT sum(amount) FROM folded), 0)
    WHERE id = NEW.account_id;
  ELSE
    INSERT INTO ledger_balance_deltas (account_id, amount) VALUES (NEW.account_id, NEW.amount);
  END IF;
  RETURN NULL;
END;
$$;

-- Every account with its balance: the row's folded part plus its deltas. Readers read this.
CREATE VIEW ledger_balances AS
SELECT a.id, a.merchant_key, a.currency, a.kind, a.bank_key, a.created_at,
       a.balance + coalesce((SELECT sum(d.amount) FROM ledger_balance_deltas d WHERE d.account_id = a.id), 0) AS balance
FROM ledger_accounts a;

-- The id of an account, created when missing, without locking it: a transfer reads the accounts
-- its snapshot sees and calls this for the others only (its first transfer of a new merchant or
-- currency). VOLATILE, so each statement inside sees what committed before it started: after an
-- insert that did nothing because a concurrent transfer had created the account (ON CONFLICT DO
-- NOTHING waits for that transfer to finish), the next SELECT finds it. Taking the row with ON
-- CONFLICT DO UPDATE instead locked it until commit, and the completions that raced to create an
-- account queued behind each other, one commit at a time.
CREATE FUNCTION ledger_account_id(p_merchant_key integer, p_currency text, p_kind text, p_bank_key integer) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  found_id integer;
BEGIN
  LOOP
    SELECT id INTO found_id FROM ledger_accounts
    WHERE merchant_key = p_merchant_key AND currency = p_currency AND kind = p_kind AND bank_key = p_bank_key;
    IF found_id IS NOT NULL THEN RETURN found_id; END IF;
    INSERT INTO ledger_accounts (merchant_key, currency, kind, bank_key) VALUES (p_merchant_key, p_currency, p_kind, p_bank_key)
    ON CONFLICT (merchant_key, currency, kind, bank_key) DO NOTHING
    RETURNING id INTO found_id;
    IF found_id IS NOT NULL THEN RETURN found_id; END IF;
  END LOOP;
END;
$$;
