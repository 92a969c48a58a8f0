-- Issue 25 (§5-6), the panel:
-- - A panel e-mail is unique within a merchant's team, not across merchants: merchant A can no
--   longer learn that B uses an address (the invitation said "taken"), nor claim it before B
--   invites it. Sign-in finds every account of an e-mail and the password says which one
--   (src/panel/auth.ts).
-- - A TOTP code is accepted once: the last time step accepted per member.
-- - The origins that may frame the customer pages opened with iframe_view=1; NULL: those of the
--   merchant's notification and return URLs; an empty array: no site.
ALTER TABLE panel_users DROP CONSTRAINT panel_users_email_key;
CREATE UNIQUE INDEX panel_users_merchant_email_idx ON panel_users (merchant_id, email);
CREATE INDEX panel_users_email_idx ON panel_users (email);
ALTER TABLE panel_users ADD COLUMN totp_last_step bigint;
ALTER TABLE merchants ADD COLUMN frame_origins text[];
