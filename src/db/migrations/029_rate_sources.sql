-- Exchange rates from a source (docs/exchange-rates.md): each rate says where it came from
-- ('manual' for PUT /admin/exchange_rates, 'bcb-ptax', 'banxico-fix', …) and when the source
-- published it; the stored usd_rate is the source's rate with the operator's markup applied.
ALTER TABLE exchange_rates
  ADD COLUMN source text NOT NULL DEFAULT 'manual',
  ADD COLUMN rate_at timestamptz,
  ADD COLUMN source_rate numeric(24, 8),
  ADD COLUMN markup_percent numeric(8, 4) NOT NULL DEFAULT 0;
-- Rows written before sources existed were set by hand at updated_at.
UPDATE exchange_rates SET rate_at = updated_at, source_rate = usd_rate WHERE rate_at IS NULL;
ALTER TABLE exchange_rates ALTER COLUMN rate_at SET NOT NULL, ALTER COLUMN source_rate SET NOT NULL;

-- The operator's markup per currency, kept apart from the rate so a fetch never loses it.
CREATE TABLE rate_markups (
  currency text PRIMARY KEY CHECK (currency ~ '^[A-Z]{3}$'),
  markup_percent numeric(8, 4) NOT NULL CHECK (markup_percent > -50 AND markup_percent < 50),
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL
);

-- The last fetch of each source, for the console (what failed and when).
CREATE TABLE rate_fetches (
  source text PRIMARY KEY,
  last_attempt_at timestamptz NOT NULL,
  last_success_at timestamptz,
  last_error text
);
