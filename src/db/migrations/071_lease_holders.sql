-- Who holds a send-once lease (src/jobs/send-once.ts, issue 45): each process registers itself as
-- a holder, named on PostgreSQL by a connection it keeps open (its backend's pid and start, as
-- pg_stat_activity shows them). A row leased by a holder whose connection is gone (the process
-- died) is claimed again at once, without waiting out its lease. On PGlite (one process) every
-- holder but the running one is gone.
CREATE TABLE job_holders (
  id text PRIMARY KEY,
  backend_pid integer,
  backend_start timestamptz,
  started_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE connector_payouts ADD COLUMN leased_by text;
ALTER TABLE connector_refunds ADD COLUMN leased_by text;
