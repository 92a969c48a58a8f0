-- Reads by id that know a time bound read only the months it allows (src/notifications/store.ts):
-- the events feed after a cursor reads from a margin before the cursor's event, a notification's
-- attempts from a margin before the notification. Both rest on one fact this migration makes
-- true: no transaction writes an event or an attempt an hour or more after it began (now(), what
-- the rows' created_at holds). A transaction that tries fails instead. caja's transactions last
-- seconds (its statement and idle-in-transaction timeouts). For events the check applies to rows
-- of the writing transaction's own tx_id: restoring an archive writes events with their old one.
-- The WHEN clause is evaluated without calling the function: a write pays for two clock reads.
CREATE FUNCTION caja_old_transaction_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% written % after its transaction began: events and attempts are written within an hour of it (reads bounded by time rely on it)',
    TG_TABLE_NAME, clock_timestamp() - now() USING ERRCODE = 'check_violation';
END $$;

CREATE TRIGGER events_young_transaction BEFORE INSERT ON events FOR EACH ROW
  WHEN (clock_timestamp() - now() >= interval '1 hour' AND NEW.tx_id = pg_current_xact_id())
  EXECUTE FUNCTION caja_old_transaction_write();

CREATE TRIGGER notification_attempts_young_transaction BEFORE INSERT ON notification_attempts FOR EACH ROW
  WHEN (clock_timestamp() - now() >= interval '1 hour')
  EXECUTE FUNCTION caja_old_transaction_write();
