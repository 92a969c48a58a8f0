-- Notification delivery: the attempt log, leases that survive a killed process, resends, and
-- a commit-ordered event feed.

-- Which worker holds a claimed row. A worker only finishes a row whose token is still its own,
-- so a worker that outlived its lease cannot overwrite the outcome of the one that took over.
ALTER TABLE notifications ADD COLUMN lease_token text;
-- A resend restarts the retry window (max age counts from here rather than created_at).
ALTER TABLE notifications ADD COLUMN resent_at timestamptz;
ALTER TABLE notifications ADD COLUMN last_status_code integer;
-- Scheme and authority of the URL, lower case: the unit of per-endpoint back-off and limits.
-- Generated, so that every writer of the outbox gets it without knowing about it.
ALTER TABLE notifications ADD COLUMN origin text
  GENERATED ALWAYS AS (lower(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*'))) STORED;
-- Claims walk due rows in (next_attempt_at, id) order and stop at the batch size.
DROP INDEX notifications_due_idx;
CREATE INDEX notifications_due_idx ON notifications (next_attempt_at, id) WHERE status = 'pending';

-- One row per HTTP attempt, kept for merchants and operators to inspect.
CREATE TABLE notification_attempts (
  id bigserial PRIMARY KEY,
  notification_id bigint NOT NULL REFERENCES notifications(id),
  attempt_no integer NOT NULL,
  started_at timestamptz NOT NULL,
  url text NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL,
  error text,
  response_excerpt text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_attempts_notification_idx ON notification_attempts (notification_id, id);

-- Event ids come from a sequence, so a transaction that took id 7 may commit after one that
-- took id 8; a feed read between the two commits would skip 7 forever. The writing
-- transaction's id orders events by commit visibility instead: the feed only serves events of
-- transactions older than every transaction still running (pg_snapshot_xmin) and pages by
-- (tx_id, id), so nothing can appear behind a cursor already handed out.
ALTER TABLE events ADD COLUMN tx_id xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_feed_idx ON events (merchant_id, tx_id, id);
