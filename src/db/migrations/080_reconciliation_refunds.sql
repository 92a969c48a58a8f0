-- Outgoing money on statements (docs/reconciliation.md): a bank debit may be matched to a refund
-- sent through a provider (a Pix devolução, an STP order back to the payer), as it is to a cashout.
ALTER TABLE reconciliation_matches DROP CONSTRAINT reconciliation_matches_target_type_check;
ALTER TABLE reconciliation_matches ADD CONSTRAINT reconciliation_matches_target_type_check CHECK (target_type IN ('deposit', 'cashout', 'refund'));
