-- The payer rule (issue 41, docs/connectors.md "The payer rule"). The merchant setting (also added
-- by migration 060 for owner-checked Pix payouts; the same line, so either order works):
ALTER TABLE merchants ADD COLUMN IF NOT EXISTS payer_must_match boolean NOT NULL DEFAULT false;

-- Whether the payer of the payment that completed the deposit was compared with its payer
-- document: true (equal), false (the provider did not report the payer), null (the rule was off).
ALTER TABLE deposits ADD COLUMN payer_checked boolean;

-- A payment refused by the rule is kept as 'refused' and sent back in full under return_reference
-- (stored before the first send; the PSP's PUT is idempotent under it); returned_at once sent.
ALTER TABLE connector_payments DROP CONSTRAINT IF EXISTS connector_payments_status_check;
ALTER TABLE connector_payments ADD CONSTRAINT connector_payments_status_check CHECK (status IN ('applied', 'unmatched', 'refused'));
ALTER TABLE connector_payments ADD COLUMN payer_document text;
ALTER TABLE connector_payments ADD COLUMN return_reference text;
ALTER TABLE connector_payments ADD COLUMN returned_at timestamptz;
