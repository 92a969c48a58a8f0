-- A payment the payer rule refused is sent back in full through its connector (Pix: a devolução
-- of the whole Pix; STP: an order to the ordering account) as a send-once job (src/jobs/send-once.ts,
-- declared by src/deposits/send-backs.ts): one row per refused payment, written with the refusal,
-- under the reference stored with the payment (connector_payments.return_reference) before
-- anything is sent; claimed under a lease, looked up at the provider before any resend, retried
-- with a backoff. connector_payments.returned_at is set once the provider shows it.
--   state    new → sending (written before the request) → sent (the provider shows it, under way)
--            → done (the money left); stopped: what the provider holds under the reference is not
--            this send-back, or the provider refused or did not make it (the operator looks)
CREATE TABLE connector_send_backs (
  id serial PRIMARY KEY,
  connector text NOT NULL,
  payment_id text NOT NULL,
  reference text NOT NULL,
  state text NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'sending', 'sent', 'done', 'stopped')),
  attempts integer NOT NULL DEFAULT 0,
  next_check_at timestamptz NOT NULL DEFAULT now(),
  leased_until timestamptz,
  leased_by text,
  last_error text,
  stopped text,
  provider_id text,
  provider_state text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (connector, payment_id) REFERENCES connector_payments (connector, payment_id),
  UNIQUE (connector, payment_id)
);
CREATE UNIQUE INDEX connector_send_backs_reference ON connector_send_backs (connector, reference);
CREATE INDEX connector_send_backs_open ON connector_send_backs (next_check_at) WHERE state NOT IN ('done', 'stopped');

-- The refused payments not sent back yet, as jobs: 'sending' (a request may have reached the
-- provider), so each is looked up before anything is sent. STP's refused at their post were
-- answered devolver (STP returns them): nothing to send.
INSERT INTO connector_send_backs (connector, payment_id, reference, state)
SELECT connector, payment_id, return_reference, 'sending' FROM connector_payments
WHERE status = 'refused' AND returned_at IS NULL AND return_reference IS NOT NULL AND NOT (connector = 'stp' AND seen_via = 'webhook');
