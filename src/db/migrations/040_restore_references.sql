-- After a database restore (or with two installations on one provider account) a row's serial id
-- repeats, so nothing sent to a provider is derived from it any more: references are random and
-- stored with their row before the first request (src/domain/references.ts). An order or a
-- devolução found at the provider under a row's reference that does not match the row (amount,
-- account, beneficiary) is not adopted: the row is 'stopped' for the operator, never completed
-- nor sent again. Rows written before keep their stored (derived) reference.
ALTER TABLE connector_payouts DROP CONSTRAINT connector_payouts_state_check;
ALTER TABLE connector_payouts ADD CONSTRAINT connector_payouts_state_check CHECK (state IN ('new', 'sending', 'sent', 'done', 'stopped'));
-- The operation day the provider dated the order (STP's fechaOperacion), once a look-up found it.
ALTER TABLE connector_payouts ADD COLUMN operation_day text;
ALTER TABLE connector_refunds DROP CONSTRAINT connector_refunds_state_check;
ALTER TABLE connector_refunds ADD CONSTRAINT connector_refunds_state_check CHECK (state IN ('new', 'sending', 'sent', 'done', 'stopped'));
CREATE INDEX connector_payouts_stopped ON connector_payouts (updated_at) WHERE state = 'stopped';
CREATE INDEX connector_refunds_stopped ON connector_refunds (updated_at) WHERE state = 'stopped';
