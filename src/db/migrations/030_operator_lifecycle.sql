-- Operators' lifecycle (docs/operators.md, "Operators' lifecycle"): an admin resets an operator's
-- TOTP, who then enrols a new secret at the next sign-in. The new secret waits, encrypted, until a
-- code of it confirms it; until then the old one is no longer accepted.
ALTER TABLE operators
  ADD COLUMN totp_reset_at timestamptz,
  ADD COLUMN totp_pending_enc text,
  ADD COLUMN password_changed_at timestamptz;
