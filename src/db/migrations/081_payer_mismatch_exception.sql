-- Issue 41: the payer rule (a merchant's payer_must_match) on a bank statement entry's
-- counterparty document. A credit from another payer than the deposit's is the operator's
-- exception payer_mismatch (src/reconciliation/matching.ts), which the operator sends back.
ALTER TABLE reconciliation_exceptions DROP CONSTRAINT reconciliation_exceptions_reason_check;
ALTER TABLE reconciliation_exceptions ADD CONSTRAINT reconciliation_exceptions_reason_check
  CHECK (reason IN ('unknown_reference', 'no_match', 'ambiguous', 'amount_differs', 'already_completed', 'already_matched', 'not_completable', 'awaits_approval',
                    'payer_mismatch'));
