-- Codes tried on a pending sign-in (password right, code owed): counted before each is checked,
-- the session is void after MFA_ATTEMPTS (src/auth/login-lockout.ts).
ALTER TABLE operator_sessions ADD COLUMN mfa_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE panel_sessions ADD COLUMN mfa_attempts integer NOT NULL DEFAULT 0;
