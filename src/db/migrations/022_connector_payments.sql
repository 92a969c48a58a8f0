-- Payments a connector's provider received (Pix: one row per end-to-end id), applied once: the
-- primary key makes a replayed webhook or an overlapping poll window a no-op. A payment that
-- matches no PENDING deposit (expired, cancelled, wrong amount, unknown txid) is kept as
-- 'unmatched' for the operator (GET /admin/connectors/pix/payments?status=unmatched).
CREATE TABLE connector_payments (
  connector text NOT NULL,
  payment_id text NOT NULL,
  charge_reference text,
  deposit_id integer REFERENCES deposits (id),
  amount numeric NOT NULL,
  currency text NOT NULL,
  receiver text,
  paid_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('applied', 'unmatched')),
  reason text,
  seen_via text NOT NULL,
  raw jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connector, payment_id)
);
CREATE INDEX connector_payments_unmatched ON connector_payments (connector, created_at) WHERE status = 'unmatched';

-- Refunds sent through a connector (Pix: a devolução), tracked until the provider settles them.
-- `reference` (the devolução id) is derived from the refund id, so a resend after a crash or a
-- timeout names the same one; state 'sending' means a request may have reached the provider:
-- it is looked up (GET) before anything is sent again.
CREATE TABLE connector_refunds (
  refund_id integer PRIMARY KEY REFERENCES refunds (id),
  connector text NOT NULL,
  reference text NOT NULL,
  payment_id text NOT NULL,
  state text NOT NULL CHECK (state IN ('new', 'sending', 'sent', 'done')),
  attempts integer NOT NULL DEFAULT 0,
  next_check_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX connector_refunds_open ON connector_refunds (next_check_at) WHERE state <> 'done';
