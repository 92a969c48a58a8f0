-- Retention and archiving of the append-only tables (docs/operations.md, "Retention and
-- archiving"). No table is rewritten: an existing database gains one index and two small tables.

-- Deleting an event checks, through the foreign key, that no notification names it; without an
-- index on the referencing column that check is a scan of the whole outbox per deleted event.
-- The retention worker also asks it directly (an event leaves only after its notifications).
-- Measured on the 2-core test machine: 1.13 s for 1 M rows of the outbox's width (411 MB, the
-- index 21 MB), so about 6 s for the 5.1 M notifications of the 5 M-deposit database when cached,
-- longer when its 2 GB must come from disk. Writes to the outbox wait for it; reads do not.
CREATE INDEX notifications_event_idx ON notifications (event_id);

-- The highest id archived per table and merchant: a cursor or id at or below it was served once
-- and is now past retention, which the API says instead of calling it unknown.
CREATE TABLE retention_horizons (
  table_name text NOT NULL,
  merchant_id integer NOT NULL,
  max_id bigint NOT NULL,
  PRIMARY KEY (table_name, merchant_id)
);

-- Every archive file, committed in the transaction that deletes its rows. A file is written as
-- `.partial` and fsynced before that commit; a partial file whose row is here was committed (it is
-- renamed into place), one whose row is not was rolled back (it is removed). So an archived row is
-- in exactly one file and in no table, whatever moment a process dies at.
CREATE TABLE retention_archive_files (
  file text PRIMARY KEY,
  partial text NOT NULL UNIQUE,
  table_name text NOT NULL,
  day date NOT NULL,
  first_id bigint NOT NULL,
  last_id bigint NOT NULL,
  row_count integer NOT NULL,
  sha256 text NOT NULL,
  host text NOT NULL,
  archived_at timestamptz NOT NULL DEFAULT now()
);
