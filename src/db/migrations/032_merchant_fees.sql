-- Fees per merchant (docs/deposits.md, "Fees"): a merchant's own fee and surcharge percentages
-- per method type, over the global schedule of src/domain/fees.ts. Only the types it overrides
-- are stored ({"fee": {"VOUCHER": "1.2"}, "surcharge": {"VOUCHER": "0.5"}}); NULL: the global
-- schedule. Each deposit keeps the merchant's overrides as they were at its creation, so a
-- method chosen later on the hosted page is charged by the schedule the deposit was made under
-- and a later change never reprices it.
ALTER TABLE merchants ADD COLUMN fee_schedule jsonb;
ALTER TABLE deposits ADD COLUMN fee_schedule jsonb;
