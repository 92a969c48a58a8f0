-- A notification carries its event's type (`event_type`, what the notifications API and the panel
-- show of its event), so that reading notifications reads no month of events. Events are
-- partitioned by month of created_at (091) and a notification names its event by id alone: the
-- join by id planned every month and probed each month's index, for every notification read.
-- An event is never updated, so the copy never goes stale.
--
-- caja's one writer of the outbox (src/notifications/outbox.ts) gives the type in the statement
-- that writes the event. A writer that does not (the previous version during an upgrade,
-- `caja archive restore` of a notifications file archived before this migration, an INSERT by
-- hand) gets it from the event by the trigger below; its WHEN clause is evaluated without calling
-- the function, so a row that carries its type costs nothing more.
--
-- Cost on a live database: every notification is rewritten once, in the migration's transaction,
-- under the ACCESS EXCLUSIVE lock ADD COLUMN takes: writers and readers of the outbox wait until
-- the commit (measured in docs/operations.md, "Upgrading to migration 098").
ALTER TABLE notifications ADD COLUMN event_type text;

CREATE FUNCTION caja_notification_event_type() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.event_type := (SELECT e.type FROM events e WHERE e.id = NEW.event_id);
  RETURN NEW;
END $$;

CREATE TRIGGER notifications_event_type BEFORE INSERT ON notifications FOR EACH ROW
  WHEN (NEW.event_type IS NULL)
  EXECUTE FUNCTION caja_notification_event_type();

UPDATE notifications n SET event_type = e.type FROM events e WHERE e.id = n.event_id;

-- Retention archives an event only once no notification names it, and a restore puts events back
-- before notifications: a notification without its event was restored from an archive alone.
DO $$
DECLARE
  missing bigint;
BEGIN
  SELECT count(*) INTO missing FROM notifications WHERE event_type IS NULL;
  IF missing > 0 THEN
    RAISE EXCEPTION '% notifications name an event that is not in the events table: restore those events (caja archive restore FILE…) and migrate again', missing;
  END IF;
END $$;

ALTER TABLE notifications ALTER COLUMN event_type SET NOT NULL;
