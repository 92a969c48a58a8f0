-- The operator console (/ops): the people who run caja, their sessions, what they did, the
-- named admin API tokens automation uses, and the four-eyes approvals (docs/operators.md).
CREATE TABLE operators (
  id serial PRIMARY KEY,
  email text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('admin', 'finance', 'risk', 'support', 'read_only')),
  -- scrypt, as the merchant panel's passwords (src/merchants/secrets.ts hashPassword).
  password_hash text NOT NULL,
  -- TOTP is mandatory: the secret exists from creation, encrypted under the master key.
  totp_secret_enc text NOT NULL,
  -- The last accepted time step: a code works once.
  totp_last_step bigint,
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE operator_sessions (
  id_hash text PRIMARY KEY,
  operator_id integer NOT NULL REFERENCES operators (id),
  csrf text NOT NULL,
  mfa_pending boolean NOT NULL,
  ip text,
  user_agent text,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL
);
CREATE INDEX operator_sessions_operator_idx ON operator_sessions (operator_id);

CREATE TABLE operator_login_failures (
  email text PRIMARY KEY,
  failures integer NOT NULL,
  first_failure_at timestamptz NOT NULL,
  locked_until timestamptz
);

-- Named bearer tokens of the admin API, each with scopes. The token itself is never stored: a
-- keyed hash of it is. Token 0 is not a row: it is CAJA_ADMIN_TOKEN, the bootstrap token.
CREATE TABLE admin_tokens (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
  scopes text[] NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  rotated_at timestamptz,
  revoked_at timestamptz
);

-- Every operator action and every admin API call that changes something: who (an operator, or
-- an admin token by id), what, on which merchant. Written in the action's transaction.
CREATE TABLE operator_audit (
  id bigserial PRIMARY KEY,
  operator_id integer REFERENCES operators (id),
  -- 0 is the bootstrap CAJA_ADMIN_TOKEN; others are admin_tokens ids.
  token_id integer,
  actor text NOT NULL,
  action text NOT NULL,
  merchant_id integer,
  subject text,
  detail jsonb NOT NULL DEFAULT '{}',
  ip text,
  request_id text,
  created_at timestamptz NOT NULL,
  CHECK ((operator_id IS NULL) <> (token_id IS NULL))
);
CREATE INDEX operator_audit_created_idx ON operator_audit (id DESC);

-- Cashouts of a merchant above this USD amount wait, ON_HOLD, for two operators (null: none do).
ALTER TABLE merchants ADD COLUMN cashout_approval_usd numeric(24, 8) CHECK (cashout_approval_usd >= 0);
ALTER TABLE cashouts ADD COLUMN awaiting_approval boolean NOT NULL DEFAULT false;

-- Four eyes: one operator requests, another decides. The database refuses a decision by the
-- requester too, so no code path can forget it.
CREATE TABLE approvals (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('cashout_release', 'balance_adjustment')),
  merchant_id integer NOT NULL REFERENCES merchants (id),
  cashout_id integer REFERENCES cashouts (id),
  payload jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  requested_by integer NOT NULL REFERENCES operators (id),
  requested_at timestamptz NOT NULL,
  decided_by integer REFERENCES operators (id),
  decided_at timestamptz,
  result jsonb,
  CHECK (decided_by IS NULL OR decided_by <> requested_by),
  CHECK ((status = 'pending') = (decided_by IS NULL))
);
-- One open request per held cashout.
CREATE UNIQUE INDEX approvals_one_open_cashout ON approvals (cashout_id) WHERE status = 'pending';
CREATE INDEX approvals_status_idx ON approvals (status, id);
