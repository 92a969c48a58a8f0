-- Time partitions (docs/operations.md, "Partitions"): events, notification attempts and the
-- deposit, refund and cashout status history become tables partitioned by month of created_at
-- (RANGE, UTC months), each with a DEFAULT partition for rows outside every month (a row
-- back-dated by hand, or months the worker has not created yet). caja's partition worker
-- (src/retention/partitions.ts) keeps the current month and the next two created; retention
-- detaches, archives and drops whole months of events and attempts.
--
-- A partitioned table's unique constraints must contain the partition key: the primary keys
-- become (id, created_at). Ids still come from the same sequences, so an id stays unique; nothing
-- uses ON CONFLICT on these tables but `caja archive restore` (ON CONFLICT DO NOTHING). The one
-- foreign key that pointed at them, notifications.event_id -> events(id), cannot point at (id)
-- any more; it is not kept: the outbox writes an event and its notifications in one transaction,
-- and retention drops an events partition only when no notification names one of its events.
--
-- Cost on a live database: every row is copied once (INSERT … SELECT into the new partitions,
-- then the indexes are built), in the migration's transaction, holding an ACCESS EXCLUSIVE lock on
-- each old table until the commit: writers and readers of these five tables wait. Measured in
-- docs/operations.md ("Upgrading to partitions"); run it in a maintenance window.

-- Creates the month partition of `parent` that holds `month` (UTC), moving the rows of that month
-- out of the DEFAULT partition first, so that it can be created whatever the default holds.
-- Answers false when it existed already. Two callers at once are serialised by the advisory lock.
CREATE FUNCTION caja_month_partition(parent text, month timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  lo timestamptz := date_trunc('month', month AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  hi timestamptz := (date_trunc('month', month AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
  part text := parent || '_p' || to_char(month AT TIME ZONE 'UTC', 'YYYYMM');
BEGIN
  PERFORM pg_advisory_xact_lock(42420091);
  IF to_regclass(part) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, parent);
  EXECUTE format('WITH moved AS (DELETE FROM %I WHERE created_at >= $1 AND created_at < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
                 parent || '_default', part) USING lo, hi;
  -- The check lets ATTACH skip scanning the new partition; it is dropped once attached.
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (created_at >= %L AND created_at < %L)', part, part || '_range', lo, hi);
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', part, part || '_range');
  RETURN true;
END $$;

-- Turns `t` into a table partitioned by month of created_at: a new parent with the same columns,
-- a default partition, one partition per month from the oldest row's to two months ahead, every
-- row copied, the old table dropped and its id sequence handed over. Indexes and constraints are
-- added by the caller afterwards (built once over the copied rows).
CREATE FUNCTION caja_partition_by_month(t text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  old text := t || '_unpartitioned';
  first timestamptz;
  m timestamptz;
BEGIN
  EXECUTE format('ALTER TABLE %I RENAME TO %I', t, old);
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at)', t, old);
  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', t || '_default', t);
  EXECUTE format('SELECT min(created_at) FROM %I', old) INTO first;
  m := date_trunc('month', least(coalesce(first, now()), now()) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  WHILE m < now() + interval '3 months' LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                   t || '_p' || to_char(m AT TIME ZONE 'UTC', 'YYYYMM'), t, m,
                   (m AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC');
    m := (m AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC';
  END LOOP;
  EXECUTE format('INSERT INTO %I SELECT * FROM %I', t, old);
  EXECUTE format('ALTER SEQUENCE %I OWNED BY NONE', t || '_id_seq');
  EXECUTE format('DROP TABLE %I CASCADE', old);
  EXECUTE format('ALTER SEQUENCE %I OWNED BY %I.id', t || '_id_seq', t);
END $$;

SELECT caja_partition_by_month('events');
ALTER TABLE events ADD PRIMARY KEY (id, created_at);
ALTER TABLE events ADD FOREIGN KEY (merchant_id) REFERENCES merchants(id);
CREATE INDEX events_merchant_id_idx ON events (merchant_id, id);
CREATE INDEX events_feed_idx ON events (merchant_id, tx_id, id);

SELECT caja_partition_by_month('notification_attempts');
ALTER TABLE notification_attempts ADD PRIMARY KEY (id, created_at);
ALTER TABLE notification_attempts ADD FOREIGN KEY (notification_id) REFERENCES notifications(id);
CREATE INDEX notification_attempts_notification_idx ON notification_attempts (notification_id, id);

SELECT caja_partition_by_month('deposit_status_changes');
ALTER TABLE deposit_status_changes ADD PRIMARY KEY (id, created_at);
ALTER TABLE deposit_status_changes ADD FOREIGN KEY (deposit_id) REFERENCES deposits(id);
CREATE INDEX deposit_status_changes_deposit_idx ON deposit_status_changes (deposit_id, id);

SELECT caja_partition_by_month('refund_status_changes');
ALTER TABLE refund_status_changes ADD PRIMARY KEY (id, created_at);
ALTER TABLE refund_status_changes ADD FOREIGN KEY (refund_id) REFERENCES refunds(id);
CREATE INDEX refund_status_changes_refund_idx ON refund_status_changes (refund_id, id);

SELECT caja_partition_by_month('cashout_status_changes');
ALTER TABLE cashout_status_changes ADD PRIMARY KEY (id, created_at);
ALTER TABLE cashout_status_changes ADD FOREIGN KEY (cashout_id) REFERENCES cashouts(id);
CREATE INDEX cashout_status_changes_cashout_idx ON cashout_status_changes (cashout_id, id);

DROP FUNCTION caja_partition_by_month(text);
