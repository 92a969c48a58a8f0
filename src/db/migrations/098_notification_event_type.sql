-- A notification carries its event's type (`event_type`, what the notifications API and the panel
-- show of its event), so that reading notifications reads no month of events. Events are
-- partitioned by month of created_at (091) and a notification names its event by id alone: the
-- join by id planned every month and probed each month's index, for every notification read.
-- An event is never updated, so the copy never goes stale.
--
-- Online: the column is added nullable and without a default, so ADD COLUMN changes the catalog
-- only (no row is rewritten; its ACCESS EXCLUSIVE lock is held for an instant). Rows written
-- before this migration keep event_type NULL: readers take their type from the event
-- (`COALESCE(n.event_type, (SELECT e.type …))` in src/notifications/store.ts) until retention
-- removes them.
--
-- caja's one writer of the outbox (src/notifications/outbox.ts) gives the type in the statement
-- that writes the event. A writer that does not (the previous version during an upgrade,
-- `caja archive restore` of a notifications file archived before this migration, an INSERT by
-- hand) gets it from the event by the trigger below; its WHEN clause is evaluated without calling
-- the function, so a row that carries its type costs nothing more. A notification whose event is
-- not in the events table (restored from an archive without its events) is refused
-- (foreign_key_violation): retention archives an event only once no notification names it, and a
-- restore puts events back before notifications.
ALTER TABLE notifications ADD COLUMN event_type text;

CREATE FUNCTION caja_notification_event_type() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.event_type := (SELECT e.type FROM events e WHERE e.id = NEW.event_id);
  IF NEW.event_type IS NULL THEN
    RAISE EXCEPTION 'notifications_event_type: notification % names event %, which is not in the events table', NEW.id, NEW.event_id
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'notifications_event_type';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER notifications_event_type BEFORE INSERT ON notifications FOR EACH ROW
  WHEN (NEW.event_type IS NULL)
  EXECUTE FUNCTION caja_notification_event_type();
