-- Deposits (pay-ins) of both API faces, their status history, idempotency keys, customer
-- limits and the merchant balance ledger that completed deposits credit.

CREATE TABLE deposits (
  -- serial: ids handed out stay below 2^31 (DESIGN.md Compatibility).
  id serial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  -- Which face created it: decides the notification format (v3 JSON or streamline form).
  source text NOT NULL CHECK (source IN ('v3', 'streamline')),
  invoice_id text NOT NULL,
  user_id text NOT NULL,
  country text NOT NULL,
  -- What the merchant asked for, in its currency.
  amount numeric(20, 2) NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  -- The same in the country's currency and in USD (at creation rates).
  local_amount numeric NOT NULL,
  local_currency text NOT NULL,
  usd_amount numeric NOT NULL,
  -- Fee and surcharge in the local currency, and what the customer pays in it.
  fee_local numeric NOT NULL,
  surcharge_local numeric NOT NULL,
  payer_amount numeric NOT NULL,
  -- Fee in USD (GET fee_amount/fee_currency) and what the merchant balance gets on completion.
  fee_usd numeric NOT NULL,
  merchant_usd numeric NOT NULL,
  fee_on_payer boolean NOT NULL,
  surcharge_on_payer boolean NOT NULL,
  payment_method text,
  payment_type text,
  payment_types text[],
  -- Streamline x_bank when it names a bank rather than a catalog method.
  bank_code text,
  checkout_type text NOT NULL CHECK (checkout_type IN ('HOSTED', 'ONE_SHOT')),
  -- 128-bit random token of the customer-facing URLs (/checkout, /pay, /vouchers).
  token text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'COMPLETED', 'CANCELLED')),
  test boolean NOT NULL DEFAULT false,
  -- The validated payer object, plus the columns the streamline face reads directly.
  payer jsonb NOT NULL DEFAULT '{}',
  payer_document text,
  payer_document_type text,
  payer_name text,
  payer_email text,
  -- Fields the customer must give (or correct) on the hosted checkout.
  missing_fields text[] NOT NULL DEFAULT '{}',
  invalid_fields text[] NOT NULL DEFAULT '{}',
  description text,
  notification_url text,
  -- Streamline x_confirmation and x_return.
  confirmation_url text,
  return_url text,
  back_url text,
  success_url text,
  error_url text,
  logo text,
  language text,
  client_ip text,
  device_id text,
  mobile boolean NOT NULL DEFAULT false,
  early_release boolean NOT NULL DEFAULT false,
  bonus_amount numeric(20, 2),
  bonus_relative boolean NOT NULL DEFAULT false,
  strikethrough_price numeric(20, 2),
  reported_info jsonb,
  bank_account jsonb,
  crypto jsonb,
  -- Face-specific leftovers (streamline x_version, x_bdate, ...).
  extra jsonb NOT NULL DEFAULT '{}',
  -- ONE_SHOT payment_info exactly as first answered (text keeps key order and number digits).
  payment_info text,
  refunded_amount numeric NOT NULL DEFAULT 0,
  -- Staging magic values: what the simulator does by itself, and when.
  sandbox_outcome text CHECK (sandbox_outcome IN ('approve', 'cancel')),
  sandbox_due_at timestamptz,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  approved_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz,
  UNIQUE (merchant_id, invoice_id)
);
CREATE INDEX deposits_expiry_idx ON deposits (expires_at) WHERE status = 'PENDING';
CREATE INDEX deposits_sandbox_idx ON deposits (sandbox_due_at) WHERE sandbox_outcome IS NOT NULL AND status IN ('PENDING', 'APPROVED');
-- Customer usage for daily and monthly limits.
CREATE INDEX deposits_user_idx ON deposits (merchant_id, user_id, created_at);
CREATE INDEX deposits_document_idx ON deposits (merchant_id, payer_document, created_at) WHERE payer_document IS NOT NULL;

-- Every status change with its time and cause (creation is the row with from_status NULL).
CREATE TABLE deposit_status_changes (
  id bigserial PRIMARY KEY,
  deposit_id integer NOT NULL REFERENCES deposits(id),
  from_status text,
  to_status text NOT NULL,
  cause text NOT NULL,
  -- Who asked: 'merchant', 'provider', 'sandbox', 'worker', 'operator'.
  actor text NOT NULL,
  note text,
  created_at timestamptz NOT NULL
);
CREATE INDEX deposit_status_changes_deposit_idx ON deposit_status_changes (deposit_id, id);

-- Idempotency keys (X-Idempotency-Key), claimed inside the creating transaction. A concurrent
-- request with the same key waits on the unique index for the first one's commit.
CREATE TABLE idempotency_keys (
  merchant_id integer NOT NULL REFERENCES merchants(id),
  scope text NOT NULL,
  key text NOT NULL,
  -- SHA-256 of the request body: the same key with another body is refused (104).
  fingerprint text NOT NULL,
  deposit_id integer REFERENCES deposits(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, scope, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- Customer limits in USD. Wildcards: merchant_id 0 (every merchant), country '*', method '*'.
-- NULL means no ceiling of that kind. The most specific matching row applies as a whole.
CREATE TABLE customer_limits (
  merchant_id integer NOT NULL DEFAULT 0,
  country text NOT NULL DEFAULT '*',
  payment_method text NOT NULL DEFAULT '*',
  per_transaction numeric CHECK (per_transaction > 0),
  daily numeric CHECK (daily > 0),
  monthly numeric CHECK (monthly > 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, country, payment_method)
);

-- Merchant balance movements; the balance of a currency is the sum of its entries. Completed
-- test=false deposits credit their merchant amount in USD.
CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  currency text NOT NULL,
  amount numeric NOT NULL,
  kind text NOT NULL,
  subject_type text NOT NULL,
  subject_id integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_merchant_idx ON ledger_entries (merchant_id, currency);
CREATE UNIQUE INDEX ledger_entries_deposit_credit_idx ON ledger_entries (subject_id) WHERE kind = 'deposit';
