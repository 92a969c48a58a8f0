-- Rotating a credential set keeps the values it replaces valid for a grace period the operator or
-- merchant chooses (docs/security.md, Rotating credentials), so an integration switches without
-- downtime: the previous login, hash and sealed secret, and when they stop working. One previous
-- set is kept; a rotation during an overlap ends the older one at once.
ALTER TABLE credentials
  ADD COLUMN previous_login text,
  ADD COLUMN previous_secret_hash text,
  ADD COLUMN previous_secret_enc text,
  ADD COLUMN previous_expires_at timestamptz;
CREATE UNIQUE INDEX credentials_previous_login ON credentials (set_name, previous_login) WHERE previous_login IS NOT NULL;
