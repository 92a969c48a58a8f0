-- Refunds sent as orders (STP: a SPEI order back to the account a deposit was paid from) and card
-- refunds, tracked in connector_refunds like Pix devoluções (docs/refunds.md, docs/connectors.md).
--
-- `destination`: where the money goes back, written with the refund before anything is sent (STP:
-- the abono's ordering account, institution, name and RFC/CURP); a look-up adopts an order found
-- under the refund's reference only when its amount, account and beneficiary are these.
-- `stopped`: why the row was stopped for the operator (an order found under its reference that is
-- not this refund's): never completed, never sent again, until the operator looks.
-- `provider_id`, `provider_state`: the provider's id of the order and the last state it reported.
ALTER TABLE connector_refunds ADD COLUMN destination jsonb;
ALTER TABLE connector_refunds ADD COLUMN stopped text;
ALTER TABLE connector_refunds ADD COLUMN provider_id text;
ALTER TABLE connector_refunds ADD COLUMN provider_state text;
-- A reference names one refund at its provider.
CREATE UNIQUE INDEX connector_refunds_reference ON connector_refunds (connector, reference);
-- One process steps a row at a time: it holds it until then (the whole request to the provider
-- included), as connector_payouts.leased_until.
ALTER TABLE connector_refunds ADD COLUMN leased_until timestamptz;
