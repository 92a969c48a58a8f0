// Exchange rates: operator-set rows first; staging falls back to the shipped sample rates.
import type { Environment } from '../config/config.ts';
import type { Queryable } from '../db/db.ts';
import { SAMPLE_USD_RATES } from '../domain/exchange-rates.ts';
import { dec, type Decimal, divideRate, fromDb, multiplyRate, toPlainString } from '../domain/money.ts';

/**
 * The one rule for which rate applies: USD is 1, an operator row wins, and staging falls back to
 * the shipped sample. `operatorRows` are the exchange_rates rows read for `wanted`.
 */
export function resolveUsdRates(env: Environment, wanted: string[], operatorRows: [string, string][]): Map<string, Decimal> {
  const rates = new Map<string, Decimal>([['USD', dec('1')]]);
  for (const [currency, rate] of operatorRows) rates.set(currency, fromDb(rate));
  if (env === 'staging') {
    for (const c of wanted) if (!rates.has(c) && SAMPLE_USD_RATES[c]) rates.set(c, dec(SAMPLE_USD_RATES[c]!));
  }
  return rates;
}

/** Units of `currency` per 1 USD, or null when no rate is known. */
export async function usdRate(q: Queryable, env: Environment, currency: string): Promise<Decimal | null> {
  const { rows } = await q.query<{ usd_rate: string }>('SELECT usd_rate FROM exchange_rates WHERE currency = $1', [currency]);
  return resolveUsdRates(env, [currency], rows.map((r) => [currency, r.usd_rate])).get(currency) ?? null;
}

/** All known rates (operator rows over samples). */
export async function allUsdRates(q: Queryable, env: Environment): Promise<Record<string, string>> {
  const out: Record<string, string> = env === 'staging' ? { ...SAMPLE_USD_RATES } : { USD: '1' };
  const { rows } = await q.query<{ currency: string; usd_rate: string }>('SELECT currency, usd_rate FROM exchange_rates ORDER BY currency');
  for (const r of rows) out[r.currency] = toPlainString(fromDb(r.usd_rate));
  return out;
}

export async function setUsdRates(q: Queryable, rates: Record<string, Decimal>): Promise<void> {
  for (const [currency, rate] of Object.entries(rates)) {
    await q.query(
      `INSERT INTO exchange_rates (currency, usd_rate, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (currency) DO UPDATE SET usd_rate = EXCLUDED.usd_rate, updated_at = now()`,
      [currency, toPlainString(rate)],
    );
  }
}

/**
 * Converts `amount` in `from` to `to` through USD, rounded to `scale` decimals (payment_info may
 * carry more than 2). Null when a rate is missing.
 */
export async function convert(q: Queryable, env: Environment, amount: Decimal, from: string, to: string, scale = 2): Promise<Decimal | null> {
  if (from === to) return amount;
  const fromRate = await usdRate(q, env, from);
  const toRate = await usdRate(q, env, to);
  if (!fromRate || !toRate) return null;
  // Multiply first, at full precision, so only the final division rounds.
  const product = multiplyRate(amount, toRate, amount.scale + toRate.scale);
  return divideRate(product, fromRate, scale);
}
