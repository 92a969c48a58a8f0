// Exchange rates: operator-set or fetched rows first; staging falls back to the shipped sample
// rates. A row says where it came from (source) and when that source published it (rate_at);
// a rate older than CAJA_RATES_MAX_AGE_HOURS is refused by the deposit and cashout services
// (rateAge below), never silently used.
import type { Capabilities } from '../config/config.ts';

/** Simulated providers (staging) fall back to the shipped sample rates. */
type Simulated = Pick<Capabilities, 'simulated'>;
import type { Queryable } from '../db/db.ts';
import { SAMPLE_USD_RATES } from '../domain/exchange-rates.ts';
import { dec, type Decimal, divideRate, fromDb, multiplyRate, toPlainString } from '../domain/money.ts';

/** A rate row as the services read it: [currency, usd_rate, rate_at]. */
export type RateRow = [string, string, string | Date];

export interface KnownRate {
  rate: Decimal;
  /** When its source published it; null for USD and staging's sample rates, which do not age. */
  at: Date | null;
}

/**
 * The one rule for which rate applies: USD is 1, a stored row wins, and staging falls back to
 * the shipped sample. `rows` are the exchange_rates rows read for `wanted`.
 */
export function resolveUsdRates(sim: Simulated, wanted: string[], rows: RateRow[]): Map<string, KnownRate> {
  const rates = new Map<string, KnownRate>([['USD', { rate: dec('1'), at: null }]]);
  for (const [currency, rate, at] of rows) rates.set(currency, { rate: fromDb(rate), at: new Date(at) });
  if (sim.simulated) {
    for (const c of wanted) if (!rates.has(c) && SAMPLE_USD_RATES[c]) rates.set(c, { rate: dec(SAMPLE_USD_RATES[c]!), at: null });
  }
  return rates;
}

/** A rate too old to use: which currency, when it was published, and the age allowed. */
export interface StaleRate {
  currency: string;
  at: Date;
  maxAgeHours: number;
}

/** The first of `currencies` whose known rate is older than maxAgeHours at `now`, or null. */
export function staleRate(rates: Map<string, KnownRate>, currencies: string[], maxAgeHours: number, now: Date): StaleRate | null {
  for (const currency of currencies) {
    const at = rates.get(currency)?.at;
    if (at && now.getTime() - at.getTime() > maxAgeHours * 3_600_000) return { currency, at, maxAgeHours };
  }
  return null;
}

/** The sentence every face shows for a stale rate (each in its own format, src/http/errors.ts). */
export function staleRateText(s: StaleRate): string {
  return `The exchange rate for ${s.currency} was published at ${s.at.toISOString()}, more than ${s.maxAgeHours} hours ago; nothing was created. Retry once a fresh rate is in (docs/exchange-rates.md)`;
}

/** Units of `currency` per 1 USD and when it was published, or null when no rate is known. */
export async function knownRate(q: Queryable, sim: Simulated, currency: string): Promise<KnownRate | null> {
  const { rows } = await q.query<{ usd_rate: string; rate_at: Date }>('SELECT usd_rate, rate_at FROM exchange_rates WHERE currency = $1', [currency]);
  return resolveUsdRates(sim, [currency], rows.map((r) => [currency, r.usd_rate, r.rate_at])).get(currency) ?? null;
}

/** Units of `currency` per 1 USD, or null when no rate is known. */
export async function usdRate(q: Queryable, sim: Simulated, currency: string): Promise<Decimal | null> {
  return (await knownRate(q, sim, currency))?.rate ?? null;
}

/** All known rates (stored rows over samples). */
export async function allUsdRates(q: Queryable, sim: Simulated): Promise<Record<string, string>> {
  const out: Record<string, string> = sim.simulated ? { ...SAMPLE_USD_RATES } : { USD: '1' };
  const { rows } = await q.query<{ currency: string; usd_rate: string }>('SELECT currency, usd_rate FROM exchange_rates ORDER BY currency');
  for (const r of rows) out[r.currency] = toPlainString(fromDb(r.usd_rate));
  return out;
}

/**
 * Converts `amount` in `from` to `to` through USD, rounded to `scale` decimals (payment_info may
 * carry more than 2). Null when a rate is missing.
 */
export async function convert(q: Queryable, sim: Simulated, amount: Decimal, from: string, to: string, scale = 2): Promise<Decimal | null> {
  if (from === to) return amount;
  const fromRate = await usdRate(q, sim, from);
  const toRate = await usdRate(q, sim, to);
  if (!fromRate || !toRate) return null;
  // Multiply first, at full precision, so only the final division rounds.
  const product = multiplyRate(amount, toRate, amount.scale + toRate.scale);
  return divideRate(product, fromRate, scale);
}
