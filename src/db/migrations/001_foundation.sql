-- Merchants, their credential sets, and the event/notification outbox every feature writes to.
CREATE TABLE merchants (
  id serial PRIMARY KEY,
  name text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('staging', 'production')),
  notification_url text,
  return_url text,
  account_validation_enabled boolean NOT NULL,
  pix_key_validation_enabled boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per merchant and credential set. `login` is the public identifier the set is looked
-- up by (for the read-only key: a keyed hash of the key itself). Trans keys, passwords and keys
-- are stored only as keyed hashes; signature secrets, which must be read back to verify
-- signatures, are stored encrypted.
CREATE TABLE credentials (
  merchant_id integer NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
  set_name text NOT NULL CHECK (set_name IN ('deposits', 'web_status', 'cashouts', 'read_only', 'panel')),
  login text NOT NULL,
  secret_hash text,
  secret_enc text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, set_name),
  UNIQUE (set_name, login)
);

-- Everything that happened to a merchant's deposits, refunds and cashouts, in commit order
-- per subject. The id is the cursor of the event feed.
CREATE TABLE events (
  id bigserial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  type text NOT NULL,
  subject_type text NOT NULL CHECK (subject_type IN ('deposit', 'refund', 'cashout')),
  subject_id integer NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_merchant_id_idx ON events (merchant_id, id);

-- The outbox: written in the same transaction as the change it announces.
CREATE TABLE notifications (
  id bigserial PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES events(id),
  merchant_id integer NOT NULL REFERENCES merchants(id),
  -- Deliveries for one subject (e.g. 'deposit:42') go out in id order.
  subject_key text NOT NULL,
  kind text NOT NULL,
  url text NOT NULL,
  content_type text NOT NULL,
  body text NOT NULL,
  -- Which of the merchant's secrets signs it: 'deposits' or 'cashouts'.
  signing_set text NOT NULL CHECK (signing_set IN ('deposits', 'cashouts')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX notifications_due_idx ON notifications (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notifications_subject_idx ON notifications (subject_key, id) WHERE status = 'pending';
CREATE INDEX notifications_merchant_idx ON notifications (merchant_id, id);
