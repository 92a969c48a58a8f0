-- The ledger check, incremental: what it proved stays proved (transfers and entries are
-- immutable), so a check reads only the transfers written since the last one that passed
-- (src/ledger/check.ts, docs/balance.md "Checking the ledger").
--
-- Transfer ids come from a sequence, so id order is not commit order; the writing transaction's
-- id is. A check records the oldest transaction still running when it looked (pg_snapshot_xmin):
-- every transfer of an older transaction was visible to it, so the next check starts there.
-- Rows written before this migration keep NULL: only a full check reads them.
ALTER TABLE ledger_transfers ADD COLUMN tx_id xid8;
ALTER TABLE ledger_transfers ALTER COLUMN tx_id SET DEFAULT pg_current_xact_id();
CREATE INDEX ledger_transfers_tx_idx ON ledger_transfers (tx_id);
-- Statistics that know the column is new (all NULL): else the planner guesses a third of the
-- table is newer than a checkpoint and joins every entry to find none.
ANALYZE ledger_transfers;

-- The last check that passed: transfers of transactions before `below` are proved.
CREATE TABLE ledger_checkpoints (
  id integer PRIMARY KEY CHECK (id = 1),
  below xid8 NOT NULL,
  checked_at timestamptz NOT NULL,
  full_check boolean NOT NULL
);

-- Per account, the sums over the proved transfers that the next check starts from: its entries,
-- and (reserved accounts) the reservations opened minus those resolved.
CREATE TABLE ledger_checkpoint_accounts (
  account_id integer PRIMARY KEY REFERENCES ledger_accounts(id),
  entries numeric NOT NULL,
  open_reserved numeric NOT NULL
);

-- A refund's or cashout's status change moves no money by itself; the incremental check finds the
-- ones changed since its last checkpoint by these.
CREATE INDEX cashouts_updated_idx ON cashouts (updated_at);
CREATE INDEX refunds_updated_idx ON refunds (updated_at);
