-- Deposit creation is no longer claimed against replays: two identical requests are two
-- deposits (X-Idempotency-Key and invoice_id make a retry safe). Its claims, which named the
-- deposit they created and stored no response, go with the column.
--   Claims of other v3 writes are now keyed differently (refund creation by its signature, other
-- writes by their route) and streamline refund forms are no longer claimed: claims of the old
-- kinds match no new request and are purged when their window ends (deposit worker).
DELETE FROM signed_requests WHERE deposit_id IS NOT NULL;
ALTER TABLE signed_requests DROP COLUMN deposit_id;
