-- Completions (issue 43): the balance deltas and the panel's figure deltas are appended once per
-- statement and account (or figure group), not once per row.
--
-- A batch of completions (src/deposits/transitions.ts) writes its ledger entries in one statement
-- and its deposits in one UPDATE. Until now each entry's row trigger appended a balance delta
-- (three per completion) and each deposit's row trigger appended two figure deltas (the old
-- group's share out, the new one's in), every one folded and deleted again by the fold worker:
-- rows written, indexed, deleted and vacuumed, and a PL/pgSQL call per row. Now one trigger per
-- statement sums the statement's rows (its transition table): a batch of 64 completions of one
-- merchant appends four balance deltas (settlement, available, fees, fee revenue) and one figure
-- delta (the group's completed count and volume; the created counts of old and new row cancel).
-- Balances and figures are the same sums at every moment: only the number of rows they are kept in
-- changes.

-- The balance rule of migration 034, per statement: an available account a statement debits is
-- locked (accounts in id order), its committed deltas folded, and the statement's net movement of
-- the account applied to its row, which the CHECK ledger_available_not_negative bounds; every other
-- account gets one delta, the sum of the statement's entries, and nothing is locked.
CREATE FUNCTION ledger_apply_entries() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
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
DROP TRIGGER ledger_entries_apply ON ledger_entries;
CREATE TRIGGER ledger_entries_apply AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION ledger_apply_entries();
DROP FUNCTION ledger_apply_entry();

-- The figures of migration 025, for updates: each updated deposit takes its old share out of its
-- (merchant, day, country, method) group and puts its new share in; summed per group, and groups
-- whose sums are all zero (an update that changed none of status, country, method or USD amount)
-- append nothing. Inserts keep their row trigger.
CREATE FUNCTION panel_deposit_update_deltas() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO panel_day_deltas (merchant_id, day, country, payment_method, created, completed, completed_usd)
  SELECT merchant_id, day, country, payment_method, sum(created), sum(completed), sum(completed_usd)
  FROM (
    SELECT o.merchant_id, (o.created_at AT TIME ZONE 'UTC')::date AS day, o.country, coalesce(o.payment_method, '-') AS payment_method, -1 AS created,
           CASE WHEN o.status = 'COMPLETED' THEN -1 ELSE 0 END AS completed, CASE WHEN o.status = 'COMPLETED' THEN -o.usd_amount ELSE 0 END AS completed_usd
    FROM old_deposits o
    UNION ALL
    SELECT n.merchant_id, (n.created_at AT TIME ZONE 'UTC')::date, n.country, coalesce(n.payment_method, '-'), 1,
           CASE WHEN n.status = 'COMPLETED' THEN 1 ELSE 0 END, CASE WHEN n.status = 'COMPLETED' THEN n.usd_amount ELSE 0 END
    FROM new_deposits n
  ) x
  GROUP BY 1, 2, 3, 4
  HAVING sum(created) <> 0 OR sum(completed) <> 0 OR sum(completed_usd) <> 0
  ORDER BY 1, 2, 3, 4;
  RETURN NULL;
END;
$$;
DROP TRIGGER deposits_panel_figures ON deposits;
CREATE TRIGGER deposits_panel_figures AFTER INSERT ON deposits
  FOR EACH ROW EXECUTE FUNCTION panel_deposit_delta();
CREATE TRIGGER deposits_panel_update_figures AFTER UPDATE ON deposits
  REFERENCING OLD TABLE AS old_deposits NEW TABLE AS new_deposits FOR EACH STATEMENT EXECUTE FUNCTION panel_deposit_update_deltas();
