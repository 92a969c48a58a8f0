-- Staging's chaos mode for notifications (docs/notifications.md): a merchant that turns it on
-- receives some notifications twice and some late, so it can prove its handler idempotent and
-- order-independent before production.
ALTER TABLE merchants ADD COLUMN sandbox_chaos boolean NOT NULL DEFAULT false;
