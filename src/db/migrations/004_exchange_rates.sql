-- USD rates set by the operator (PUT /admin/exchange_rates). In staging, currencies without a
-- row use the sample rates shipped in src/domain/exchange-rates.ts.
CREATE TABLE exchange_rates (
  currency text PRIMARY KEY CHECK (currency ~ '^[A-Z]{3}$'),
  -- Units of `currency` per 1 USD.
  usd_rate numeric(24, 8) NOT NULL CHECK (usd_rate > 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
