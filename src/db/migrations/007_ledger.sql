-- A double-entry ledger replaces the single-entry ledger_entries of 002.
--
-- Accounts: per merchant and currency `available`, `reserved` and `fees`; caja's own per
-- currency `settlement` (money that entered or left through payers and beneficiaries) and
-- `fee_revenue` (fees payers paid on top). Every movement is a transfer whose entries sum to
-- zero per currency. Transfers and entries are immutable (a trigger refuses UPDATE and DELETE);
-- a correction is a new transfer. Two-phase movements: a `pending` transfer moves money into
-- `reserved`, and exactly one later transfer that `resolves` it posts or voids it.
--
-- An account's balance is kept beside its entries (a trigger adds each entry as it is written)
-- so that reads and the "available never below zero" rule cost one row; `caja ledger check`
-- proves balance = sum(entries) for every account.

CREATE TABLE ledger_accounts (
  id serial PRIMARY KEY,
  -- 0 for caja's own accounts: a plain column keeps the unique key and upserts simple.
  merchant_key integer NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  kind text NOT NULL CHECK (kind IN ('available', 'reserved', 'fees', 'settlement', 'fee_revenue')),
  balance numeric NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (merchant_key, currency, kind),
  CHECK ((merchant_key = 0) = (kind IN ('settlement', 'fee_revenue')))
);

CREATE TABLE ledger_transfers (
  id bigserial PRIMARY KEY,
  -- Whose movement it is (NULL: caja's alone); the balance-transactions list reads it.
  merchant_id integer REFERENCES merchants(id),
  -- e.g. deposit.credit, refund.reserve, refund.post, cashout.void, adjustment.credit
  kind text NOT NULL,
  -- What caused it: a deposit, refund, cashout or adjustment.
  subject_type text NOT NULL CHECK (subject_type IN ('deposit', 'refund', 'cashout', 'adjustment')),
  subject_id integer NOT NULL,
  pending boolean NOT NULL DEFAULT false,
  resolves bigint REFERENCES ledger_transfers(id),
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (NOT (pending AND resolves IS NOT NULL))
);
-- A cause moves money once per kind: a replayed completion, a second worker, a retried request
-- all find the transfer already there.
CREATE UNIQUE INDEX ledger_transfers_once_idx ON ledger_transfers (kind, subject_type, subject_id);
-- A reservation is posted or voided at most once.
CREATE UNIQUE INDEX ledger_transfers_resolves_idx ON ledger_transfers (resolves) WHERE resolves IS NOT NULL;
CREATE INDEX ledger_transfers_merchant_idx ON ledger_transfers (merchant_id, id);

-- The new entries table; the old single-entry one is migrated below and dropped.
ALTER TABLE ledger_entries RENAME TO ledger_entries_v1;
ALTER INDEX ledger_entries_merchant_idx RENAME TO ledger_entries_v1_merchant_idx;
ALTER INDEX ledger_entries_deposit_credit_idx RENAME TO ledger_entries_v1_deposit_credit_idx;

CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  transfer_id bigint NOT NULL REFERENCES ledger_transfers(id),
  account_id integer NOT NULL REFERENCES ledger_accounts(id),
  -- Signed: positive adds to the account's balance.
  amount numeric NOT NULL CHECK (amount <> 0)
);
CREATE INDEX ledger_entries_transfer_idx ON ledger_entries (transfer_id);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, transfer_id);

CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger rows are immutable: % on % refused; write a correcting transfer', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER ledger_transfers_immutable BEFORE UPDATE OR DELETE ON ledger_transfers
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER ledger_entries_immutable BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();

-- Each entry moves its account's balance, in the statement that writes it. (Upserting accounts
-- with their new balance would not do: PostgreSQL checks an INSERT ... ON CONFLICT row against
-- CHECK constraints before it finds the conflict, so a debit of an existing account would fail.)
CREATE FUNCTION ledger_apply_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ledger_accounts SET balance = balance + NEW.amount WHERE id = NEW.account_id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER ledger_entries_apply AFTER INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_apply_entry();

-- Merchants settle in USD unless configured otherwise.
ALTER TABLE merchants ADD COLUMN settlement_currency text NOT NULL DEFAULT 'USD' CHECK (settlement_currency ~ '^[A-Z]{3}$');

-- Operator credits and debits, with who and why.
CREATE TABLE balance_adjustments (
  id serial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  direction text NOT NULL CHECK (direction IN ('credit', 'debit')),
  amount numeric NOT NULL CHECK (amount > 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  reason text NOT NULL,
  actor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX balance_adjustments_merchant_idx ON balance_adjustments (merchant_id, id);

-- Migrate the single-entry rows: a deposit credit came from settlement, a refund went back to it.
-- Each old row becomes one balanced transfer, so every merchant balance is what it was.
INSERT INTO ledger_transfers (merchant_id, kind, subject_type, subject_id, description, created_at)
SELECT merchant_id, CASE kind WHEN 'deposit' THEN 'deposit.credit' ELSE 'refund.debit' END,
       subject_type, subject_id, 'migrated from the single-entry ledger', created_at
FROM ledger_entries_v1 ORDER BY id;

INSERT INTO ledger_accounts (merchant_key, currency, kind)
SELECT DISTINCT merchant_id, currency, 'available' FROM ledger_entries_v1
UNION SELECT DISTINCT 0, currency, 'settlement' FROM ledger_entries_v1;

INSERT INTO ledger_entries (transfer_id, account_id, amount)
SELECT t.id, a.id, e.amount
FROM ledger_entries_v1 e
JOIN ledger_transfers t ON t.subject_type = e.subject_type AND t.subject_id = e.subject_id
  AND t.kind = CASE e.kind WHEN 'deposit' THEN 'deposit.credit' ELSE 'refund.debit' END
JOIN ledger_accounts a ON a.merchant_key = e.merchant_id AND a.currency = e.currency AND a.kind = 'available'
WHERE e.amount <> 0
UNION ALL
SELECT t.id, a.id, -e.amount
FROM ledger_entries_v1 e
JOIN ledger_transfers t ON t.subject_type = e.subject_type AND t.subject_id = e.subject_id
  AND t.kind = CASE e.kind WHEN 'deposit' THEN 'deposit.credit' ELSE 'refund.debit' END
JOIN ledger_accounts a ON a.merchant_key = 0 AND a.currency = e.currency AND a.kind = 'settlement'
WHERE e.amount <> 0;

DROP TABLE ledger_entries_v1;

-- Available never goes below zero. NOT VALID: a balance migrated from the single-entry ledger
-- that was already negative (refunds were never checked against it) does not stop the upgrade;
-- any new write is checked, and `caja ledger check` reports the old one.
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_available_not_negative
  CHECK (kind <> 'available' OR balance >= 0) NOT VALID;
