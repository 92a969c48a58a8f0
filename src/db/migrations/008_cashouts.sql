-- Cashouts (payouts to beneficiary bank accounts), their history, and what refunds now record
-- of the balance they take.

CREATE TABLE cashouts (
  -- serial: ids handed out stay below 2^31 (DESIGN.md Compatibility).
  id serial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  external_id text NOT NULL,
  country text NOT NULL,
  -- As requested: USD or the country's currency.
  amount numeric(20, 2) NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  -- The same in the country's currency and in USD, at the rate fixed at creation.
  local_amount numeric NOT NULL,
  local_currency text NOT NULL,
  usd_amount numeric NOT NULL,
  -- Units of local currency per USD used for the conversion.
  fx_rate numeric NOT NULL,
  -- What was reserved from the merchant's balance, in its settlement currency.
  settlement_amount numeric NOT NULL CHECK (settlement_amount > 0),
  settlement_currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'ON_HOLD', 'CANCELLED', 'DELIVERED', 'COMPLETED', 'REJECTED')),
  document_id text NOT NULL,
  document_type text,
  beneficiary_name text NOT NULL,
  beneficiary_lastname text,
  bank_code text,
  bank_name text,
  bank_account text NOT NULL,
  bank_branch text,
  account_type text,
  email text,
  phone text,
  address text,
  notification_url text,
  comments text,
  rejection_code text,
  rejection_reason text,
  bank_reference_id text,
  -- The staging bank: when it picks a PENDING cashout up, when it answers a DELIVERED one, and
  -- when a COMPLETED one bounces back (magic values, docs/cashouts.md).
  pickup_at timestamptz,
  outcome_at timestamptz,
  return_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  delivered_at timestamptz,
  completed_at timestamptz,
  rejected_at timestamptz,
  cancelled_at timestamptz,
  UNIQUE (merchant_id, external_id)
);
CREATE INDEX cashouts_pickup_idx ON cashouts (pickup_at) WHERE status = 'PENDING';
CREATE INDEX cashouts_outcome_idx ON cashouts (outcome_at) WHERE status = 'DELIVERED';
CREATE INDEX cashouts_return_idx ON cashouts (return_at) WHERE status = 'COMPLETED' AND return_at IS NOT NULL;
CREATE INDEX cashouts_merchant_idx ON cashouts (merchant_id, id);

CREATE TABLE cashout_status_changes (
  id bigserial PRIMARY KEY,
  cashout_id integer NOT NULL REFERENCES cashouts(id),
  from_status text,
  to_status text NOT NULL,
  cause text NOT NULL,
  -- 'merchant', 'bank', 'sandbox', 'operator', 'panel'.
  actor text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX cashout_status_changes_cashout_idx ON cashout_status_changes (cashout_id, id);

-- What a refund takes back of what its deposit credited: its share of the net (from the
-- merchant's available balance) and of the fees (returned from the merchant's fees account).
ALTER TABLE refunds ADD COLUMN settlement_amount numeric;
ALTER TABLE refunds ADD COLUMN settlement_fee numeric;
ALTER TABLE refunds ADD COLUMN settlement_currency text;

-- X-Idempotency-Key on refunds: the key remembers the refund it created.
ALTER TABLE idempotency_keys ADD COLUMN refund_id integer REFERENCES refunds(id);
