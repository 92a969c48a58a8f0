-- Completions (issue 43): a ledger entry's transfer is checked once per statement, not by a
-- foreign key per entry.
--
-- The foreign key ledger_entries.transfer_id ran, for every entry, a lookup of its transfer and a
-- row lock (FOR KEY SHARE) on it, with its WAL record: the largest share of a batch of
-- completions' ledger statement (docs/performance.md, "Completions in shared transactions"). What
-- the lock protects against cannot happen to a transfer: it is never updated or deleted (the
-- trigger ledger_transfers_immutable of 007 refuses both), and TRUNCATE, which no row trigger
-- sees, is refused below. So the rule "every entry names a transfer that exists" needs only the
-- lookup, and the statement trigger that applies the entries (097) makes it once for the
-- statement's transfers, set-based, and refuses the statement (foreign_key_violation) when one is
-- missing.
--
-- Online: dropping a foreign key changes the catalog only; its lock on both tables is held for an
-- instant, and no row is read or rewritten.
CREATE FUNCTION ledger_truncate_refused() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger rows are immutable: TRUNCATE on % refused', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER ledger_transfers_no_truncate BEFORE TRUNCATE ON ledger_transfers
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_truncate_refused();

CREATE OR REPLACE FUNCTION ledger_apply_entries() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  -- Every entry names a transfer (what the foreign key checked, for each entry).
  SELECT e.transfer_id INTO r FROM (SELECT DISTINCT transfer_id FROM new_entries) e
  WHERE NOT EXISTS (SELECT 1 FROM ledger_transfers t WHERE t.id = e.transfer_id) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger_entries_transfer_id: an entry names transfer %, which does not exist', r.transfer_id
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'ledger_entries_transfer_id';
  END IF;
  FOR r IN
    SELECT e.account_id, sum(e.amount) AS amount
    FROM new_entries e JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'available'
    GROUP BY e.account_id HAVING min(e.amount) < 0 ORDER BY e.account_id
  LOOP
    -- The lock first: the fold then sees every delta committed before it was granted (034).
    PERFORM 1 FROM ledger_accounts WHERE id = r.account_id FOR NO KEY UPDATE;
    WITH folded AS (DELETE FROM ledger_balance_deltas WHERE account_id = r.account_id RETURNING amount)
    UPDATE ledger_accounts SET balance = balance + r.amount + coalesce((SELECT sum(amount) FROM folded), 0)
    WHERE id = r.account_id;
  END LOOP;
  INSERT INTO ledger_balance_deltas (account_id, amount)
  SELECT e.account_id, sum(e.amount) FROM new_entries e
  WHERE NOT EXISTS (
    SELECT 1 FROM ledger_accounts a WHERE a.id = e.account_id AND a.kind = 'available'
      AND EXISTS (SELECT 1 FROM new_entries d WHERE d.account_id = e.account_id AND d.amount < 0))
  GROUP BY e.account_id HAVING sum(e.amount) <> 0 ORDER BY e.account_id;
  RETURN NULL;
END;
$$;

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_transfer_id_fkey;
