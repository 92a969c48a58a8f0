-- The outcome of a write transaction whose COMMIT was in flight when its connection broke (a
-- failover): each write transaction on PostgreSQL inserts a random token here in the COMMIT's own
-- round trip (src/db/db.ts). After reconnecting, caja inserts the same token again: a conflict
-- says the transaction committed (its answer is sent), a new row says it did not and now never
-- can (the token is taken), so it is run again. Rows are needed for seconds; they are pruned.
CREATE TABLE tx_outcomes (
  token uuid PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tx_outcomes_at ON tx_outcomes (at);
