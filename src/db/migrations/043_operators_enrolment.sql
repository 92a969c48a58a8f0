-- Operators enrol themselves (docs/operators.md, "Making operators and resets"): an admin (or the
-- CLI) making or resetting an operator receives a one-time enrolment link, never a password nor an
-- authenticator secret; the operator chooses the password and enrols the authenticator through
-- it. Only a keyed hash of the link is kept, with its expiry; it is cleared when used.
-- Who made and who last reset each operator is kept for four eyes: an approver may not be the
-- requester, nor an operator the requester made or reset (src/operators/approvals.ts). Null: made
-- by the CLI at the machine, or before this was recorded.
ALTER TABLE operators
  ADD COLUMN created_by integer REFERENCES operators (id),
  ADD COLUMN last_reset_by integer REFERENCES operators (id),
  ADD COLUMN last_reset_at timestamptz,
  ADD COLUMN enrolment_hash text UNIQUE,
  ADD COLUMN enrolment_expires_at timestamptz;
