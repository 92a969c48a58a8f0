-- The caja_cashouts_waiting gauge (GET /metrics, src/cashouts/list.ts waitingCashouts) counts the
-- cashouts still PENDING or DELIVERED by country and status with the oldest's age. Without an
-- index of its own it scanned every cashout on every scrape: 4.17 × its empty-state cost at
-- 2.5 M deposits (docs/performance.md, "At scale"). The waiting ones are few at any size: this
-- partial index holds only them, and the gauge reads it alone (index-only).
CREATE INDEX cashouts_waiting_idx ON cashouts (country, status, created_at) WHERE status IN ('PENDING', 'DELIVERED');
