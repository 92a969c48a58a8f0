-- Pay-in connectors configured by the operator (src/connectors/): one row per real connector
-- (today 'pix'). `settings` holds what may be shown back; `secrets` is a JSON object sealed with
-- the master key (SecretBox, bound to 'connector:<name>'). The health columns are written by the
-- connector as it works (token obtained, webhook registered, reconciliation poll).
CREATE TABLE connectors (
  name text PRIMARY KEY,
  enabled boolean NOT NULL DEFAULT true,
  settings jsonb NOT NULL,
  secrets text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  token_obtained_at timestamptz,
  webhook_registered_at timestamptz,
  webhook_url text,
  last_poll_at timestamptz,
  last_poll_ok boolean,
  -- The end of the last window the reconciliation poll read completely; the next one overlaps it.
  poll_until timestamptz,
  -- One process polls at a time: it holds the lease until then.
  poll_lease_until timestamptz,
  last_error text,
  last_error_at timestamptz
);

-- The connector a deposit's charge was created through, and the provider's name for the charge
-- (Pix: the txid). Completions and refunds find the deposit and its connector by them.
ALTER TABLE deposits ADD COLUMN connector text;
ALTER TABLE deposits ADD COLUMN connector_reference text;
CREATE UNIQUE INDEX deposits_connector_reference ON deposits (connector, connector_reference) WHERE connector_reference IS NOT NULL;
