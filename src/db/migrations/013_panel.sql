-- The merchant panel: its users (the owner signs in with the merchant's `panel` credentials; the
-- others are invited by the owner), database sessions, the sign-in failure counters behind the
-- lock-out, the audit log of every change made in the panel, and the cashout CSV files already
-- imported (so a re-upload creates nothing twice).

CREATE TABLE panel_users (
  id serial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  -- Lower-cased. The owner's row mirrors the `panel` credential e-mail.
  email text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'support')),
  -- scrypt; NULL for the owner, whose password lives in credentials (set 'panel').
  password_hash text,
  -- Encrypted base32 TOTP secret; totp_enabled once a code from it was confirmed.
  totp_secret_enc text,
  totp_enabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz
);
CREATE UNIQUE INDEX panel_users_owner_idx ON panel_users (merchant_id) WHERE role = 'owner';

CREATE TABLE panel_sessions (
  -- Keyed hash of the cookie value: a leaked table cannot be replayed as cookies.
  id_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES panel_users(id),
  merchant_id integer NOT NULL REFERENCES merchants(id),
  csrf text NOT NULL,
  -- Password checked, TOTP code still owed.
  mfa_pending boolean NOT NULL DEFAULT false,
  ip text,
  user_agent text,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL
);
CREATE INDEX panel_sessions_user_idx ON panel_sessions (user_id);

CREATE TABLE panel_login_failures (
  email text PRIMARY KEY,
  failures integer NOT NULL,
  first_failure_at timestamptz NOT NULL,
  locked_until timestamptz
);

CREATE TABLE panel_audit (
  id bigserial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  user_id integer REFERENCES panel_users(id),
  email text NOT NULL,
  action text NOT NULL,
  subject text,
  detail jsonb NOT NULL DEFAULT '{}',
  ip text,
  created_at timestamptz NOT NULL
);
CREATE INDEX panel_audit_merchant_idx ON panel_audit (merchant_id, id);

CREATE TABLE panel_cashout_imports (
  merchant_id integer NOT NULL REFERENCES merchants(id),
  -- SHA-256 of the uploaded file.
  file_hash text NOT NULL,
  user_id integer NOT NULL REFERENCES panel_users(id),
  created_count integer NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, file_hash)
);
