-- Refunds of completed deposits, from either face. Amounts are kept in the deposit's currency
-- (what v3 sends) and in the local currency (what streamline sends by default); the sum of
-- PENDING and COMPLETED refunds never exceeds the deposit in either.
CREATE TABLE refunds (
  id serial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  deposit_id integer NOT NULL REFERENCES deposits(id),
  source text NOT NULL CHECK (source IN ('v3', 'streamline')),
  status text NOT NULL CHECK (status IN ('PENDING', 'COMPLETED', 'REJECTED', 'CANCELLED')),
  amount numeric(20, 2) NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  local_amount numeric(20, 2) NOT NULL CHECK (local_amount > 0),
  local_currency text NOT NULL,
  -- What the merchant asked for, as written (streamline echoes x_amount and x_currency).
  requested_amount text,
  requested_currency text,
  card boolean NOT NULL,
  bank_account jsonb,
  comments text,
  notification_url text,
  reason text,
  reason_code text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX refunds_deposit_idx ON refunds (deposit_id);
CREATE INDEX refunds_merchant_idx ON refunds (merchant_id, id);

CREATE TABLE refund_status_changes (
  id bigserial PRIMARY KEY,
  refund_id integer NOT NULL REFERENCES refunds(id),
  from_status text,
  to_status text NOT NULL,
  cause text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refund_status_changes_refund_idx ON refund_status_changes (refund_id, id);
