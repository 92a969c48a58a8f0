-- Four eyes over every hand-made movement of merchant money (docs/operators.md, "Four eyes"):
-- besides the console's adjustments and held cashouts, an admin token's or the CLI's balance
-- adjustment, a reconciliation match that credits a merchant and a manual exchange rate outside
-- its band are requests another operator approves. A request is asked by an operator or by a
-- token (the CLI is token 0 named 'cli'); an exchange rate belongs to no merchant.
ALTER TABLE approvals ALTER COLUMN requested_by DROP NOT NULL;
ALTER TABLE approvals ALTER COLUMN merchant_id DROP NOT NULL;
ALTER TABLE approvals ADD COLUMN requested_by_token integer;
ALTER TABLE approvals ADD COLUMN requested_by_name text;
ALTER TABLE approvals ADD CONSTRAINT approvals_one_requester CHECK ((requested_by IS NULL) <> (requested_by_token IS NULL));
ALTER TABLE approvals DROP CONSTRAINT approvals_kind_check;
ALTER TABLE approvals ADD CONSTRAINT approvals_kind_check
  CHECK (kind IN ('cashout_release', 'balance_adjustment', 'reconciliation_match', 'exchange_rate'));
-- One open request per reconciliation exception.
CREATE UNIQUE INDEX approvals_one_open_exception ON approvals ((payload ->> 'exception_id')) WHERE status = 'pending' AND kind = 'reconciliation_match';
-- Production: an import's match that would credit a merchant is held as an exception of this
-- reason, with a request for a second operator (docs/reconciliation.md, "Four eyes").
ALTER TABLE reconciliation_exceptions DROP CONSTRAINT reconciliation_exceptions_reason_check;
ALTER TABLE reconciliation_exceptions ADD CONSTRAINT reconciliation_exceptions_reason_check
  CHECK (reason IN ('unknown_reference', 'no_match', 'ambiguous', 'amount_differs', 'already_completed', 'already_matched', 'not_completable', 'awaits_approval'));
