-- Outgoing money on statements (docs/reconciliation.md): a bank debit may be matched to a refund
-- sent through a provider (a Pix devolução, an STP order back to the payer), as it is to a cashout.
ALTER TABLE reconciliation_matches DROP CONSTRAINT reconciliation_matches_target_type_check;
ALTER TABLE reconciliation_matches ADD CONSTRAINT reconciliation_matches_target_type_check CHECK (target_type IN ('deposit', 'cashout', 'refund'));

-- What a statement's references are looked up by (src/reconciliation/knowledge.ts), whichever
-- connector sent the money: a refund's reference and its provider's id (the devolução's return
-- id), a payout's reference (STP's clave de rastreo), and an STP abono's clave (its payment id is
-- clave:institution:date).
CREATE INDEX connector_refunds_reference_any ON connector_refunds (reference);
CREATE INDEX connector_refunds_provider_id ON connector_refunds (provider_id) WHERE provider_id IS NOT NULL;
CREATE INDEX connector_payouts_reference_any ON connector_payouts (reference);
CREATE INDEX connector_payments_stp_clave ON connector_payments ((split_part(payment_id, ':', 1))) WHERE connector = 'stp';
