-- A merchant's list filtered by status (the panel's status filter, GET /v3/deposits?status=…,
-- the cashouts list) pages newest first inside that status. Through (merchant_id, id) alone, the
-- page's ids were found by reading the merchant's rows newest first and dropping the other
-- statuses: at 5 M deposits a large merchant's first page of a rare status took 161 ms
-- (docs/performance.md, "At scale"). A status change already writes a new entry in every index of
-- the row (status is in the predicates of partial indexes, so the update is never HOT); this adds
-- one more to it and to each creation.
CREATE INDEX deposits_merchant_status_idx ON deposits (merchant_id, status, id);
CREATE INDEX cashouts_merchant_status_idx ON cashouts (merchant_id, status, id);
