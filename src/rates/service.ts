// Exchange rates as the operator runs them: fetched from their sources on a schedule (worker.ts),
// raised or lowered by the operator's markup per currency, or set by hand (PUT
// /admin/exchange_rates, source 'manual': staging, or an override in production). Every stored
// rate carries its source and the time its source published it; lookups/exchange-rates.ts
// refuses one older than CAJA_RATES_MAX_AGE_HOURS.
//
// A fetched rate replaces the stored one only when it was published later, so a manual override
// stands until the source publishes a newer rate.
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { dec, type Decimal, fromDb, toDb, toPlainString } from '../domain/money.ts';
import { type OpsActor, recordOpsAudit } from '../operators/audit.ts';
import { applyMarkup } from './markup.ts';
import type { RatesSource } from './source.ts';

export const MANUAL = 'manual';

async function markupOf(q: Queryable, currency: string): Promise<Decimal> {
  const { rows } = await q.query<{ markup_percent: string }>('SELECT markup_percent FROM rate_markups WHERE currency = $1', [currency]);
  return rows[0] ? fromDb(rows[0].markup_percent) : dec('0');
}

/** Rates set by hand: used as given (no markup), published now, source 'manual'. */
export async function setManualRates(ctx: AppContext, rates: Record<string, Decimal>, actor: OpsActor): Promise<void> {
  await ctx.db.tx((q) => setManualRatesIn(q, ctx, rates, actor));
  // Deposit creation reads rates through the cache: the new ones apply from now on.
  ctx.cache.changed();
}

/** setManualRates inside the caller's transaction (a four-eyes approval writes it with the decision; `approval` names it in the audit row). */
export async function setManualRatesIn(q: Queryable, ctx: AppContext, rates: Record<string, Decimal>, actor: OpsActor, approval?: string): Promise<void> {
  const now = ctx.now();
  for (const [currency, rate] of Object.entries(rates)) {
    await q.query(
      `INSERT INTO exchange_rates (currency, usd_rate, updated_at, source, rate_at, source_rate, markup_percent) VALUES ($1, $2, $3, $4, $3, $2, 0)
       ON CONFLICT (currency) DO UPDATE SET usd_rate = EXCLUDED.usd_rate, updated_at = EXCLUDED.updated_at, source = EXCLUDED.source,
         rate_at = EXCLUDED.rate_at, source_rate = EXCLUDED.source_rate, markup_percent = 0`,
      [currency, toDb(rate), now, MANUAL],
    );
  }
  const detail: Record<string, string> = Object.fromEntries(Object.entries(rates).map(([c, r]) => [c, toPlainString(r)]));
  await recordOpsAudit(q, { actor, action: 'rates.set_manual', detail: approval ? { ...detail, approval } : detail, at: now });
}

/** The rate a source last published for each currency (null: none, or a manual rate replaced it), for the four-eyes band. */
export async function sourceRates(q: Queryable, currencies: string[]): Promise<Map<string, Decimal | null>> {
  const { rows } = await q.query<{ currency: string; source: string; source_rate: string }>(
    'SELECT currency, source, source_rate FROM exchange_rates WHERE currency = ANY($1::text[])', [currencies]);
  return new Map(currencies.map((c) => {
    const r = rows.find((x) => x.currency === c);
    return [c, r && r.source !== MANUAL ? fromDb(r.source_rate) : null];
  }));
}

export interface FetchOutcome {
  source: string;
  currency: string;
  /** 'stored': a newer rate is in; 'unchanged': nothing newer was published; 'failed': see error. */
  result: 'stored' | 'unchanged' | 'failed';
  error?: string;
}

/** One pass over the sources: each fetched, marked up and stored; one failing does not stop the others. */
export async function fetchRates(ctx: AppContext, sources: RatesSource[]): Promise<FetchOutcome[]> {
  const out: FetchOutcome[] = [];
  for (const s of sources) {
    const now = ctx.now();
    try {
      const published = await s.latest(now);
      const stored = await ctx.db.tx(async (q) => {
        const markup = await markupOf(q, s.currency);
        const { rows } = await q.query(
          `INSERT INTO exchange_rates (currency, usd_rate, updated_at, source, rate_at, source_rate, markup_percent) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (currency) DO UPDATE SET usd_rate = EXCLUDED.usd_rate, updated_at = EXCLUDED.updated_at, source = EXCLUDED.source,
             rate_at = EXCLUDED.rate_at, source_rate = EXCLUDED.source_rate, markup_percent = EXCLUDED.markup_percent
           WHERE exchange_rates.rate_at < EXCLUDED.rate_at
           RETURNING currency`,
          [s.currency, toDb(applyMarkup(published.rate, markup)), now, s.name, published.at, toDb(published.rate), toDb(markup)],
        );
        await q.query(
          `INSERT INTO rate_fetches (source, last_attempt_at, last_success_at, last_error) VALUES ($1, $2, $2, NULL)
           ON CONFLICT (source) DO UPDATE SET last_attempt_at = $2, last_success_at = $2, last_error = NULL`,
          [s.name, now],
        );
        return rows.length === 1;
      });
      out.push({ source: s.name, currency: s.currency, result: stored ? 'stored' : 'unchanged' });
    } catch (err) {
      const message = (err as Error).message.slice(0, 500);
      ctx.log.warn({ source: s.name, err: message }, 'exchange rate fetch failed; retried next pass');
      await ctx.db.query(
        `INSERT INTO rate_fetches (source, last_attempt_at, last_error) VALUES ($1, $2, $3)
         ON CONFLICT (source) DO UPDATE SET last_attempt_at = $2, last_error = $3`,
        [s.name, now, message],
      );
      out.push({ source: s.name, currency: s.currency, result: 'failed', error: message });
    }
  }
  if (out.some((o) => o.result === 'stored')) ctx.cache.changed();
  return out;
}

/**
 * The operator's markup for a currency; a rate already fetched from a source is re-priced at
 * once (a manual rate is final and stays as set).
 */
export async function setMarkup(ctx: AppContext, currency: string, markup: Decimal, actor: OpsActor): Promise<void> {
  await setMarkups(ctx, [[currency, markup]], actor);
}

/** Several currencies' markups in one transaction (PUT /admin/exchange_rates/markups): all or none, each audited. */
export async function setMarkups(ctx: AppContext, markups: [string, Decimal][], actor: OpsActor): Promise<void> {
  const now = ctx.now();
  await ctx.db.tx(async (q) => {
    for (const [currency, markup] of markups) {
      const { rows } = await q.query<{ markup_percent: string }>('SELECT markup_percent FROM rate_markups WHERE currency = $1 FOR UPDATE', [currency]);
      await q.query(
        `INSERT INTO rate_markups (currency, markup_percent, updated_by, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (currency) DO UPDATE SET markup_percent = EXCLUDED.markup_percent, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`,
        [currency, toDb(markup), actor.kind === 'operator' ? actor.email : actor.name, now],
      );
      const { rows: rate } = await q.query<{ source_rate: string }>('SELECT source_rate FROM exchange_rates WHERE currency = $1 AND source <> $2 FOR UPDATE', [currency, MANUAL]);
      if (rate[0]) {
        await q.query('UPDATE exchange_rates SET usd_rate = $2, markup_percent = $3, updated_at = $4 WHERE currency = $1', [
          currency, toDb(applyMarkup(fromDb(rate[0].source_rate), markup)), toDb(markup), now,
        ]);
      }
      await recordOpsAudit(q, { actor, action: 'rates.markup', subject: currency, detail: { from: rows[0] ? toPlainString(fromDb(rows[0].markup_percent)) : '0', to: toPlainString(markup) }, at: now });
    }
  });
  ctx.cache.changed();
}

export interface RateLine {
  currency: string;
  usdRate: string;
  sourceRate: string;
  markupPercent: string;
  source: string;
  rateAt: Date;
  updatedAt: Date;
  stale: boolean;
}

export interface SourceLine {
  source: string;
  currency: string;
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
}

/** What the console and GET /admin/exchange_rates/status show: each stored rate, each source's last fetch. */
export async function rateBoard(ctx: AppContext, sources: { name: string; currency: string }[]): Promise<{ rates: RateLine[]; sources: SourceLine[]; markups: Record<string, string> }> {
  const now = ctx.now().getTime();
  const maxAge = ctx.config.rates.maxAgeHours * 3_600_000;
  const { rows } = await ctx.db.query<{ currency: string; usd_rate: string; source_rate: string; markup_percent: string; source: string; rate_at: Date; updated_at: Date }>(
    'SELECT currency, usd_rate, source_rate, markup_percent, source, rate_at, updated_at FROM exchange_rates ORDER BY currency',
  );
  const fetches = await ctx.db.query<{ source: string; last_attempt_at: Date; last_success_at: Date | null; last_error: string | null }>('SELECT * FROM rate_fetches');
  const markups = await ctx.db.query<{ currency: string; markup_percent: string }>('SELECT currency, markup_percent FROM rate_markups ORDER BY currency');
  return {
    rates: rows.map((r) => ({
      currency: r.currency, usdRate: toPlainString(fromDb(r.usd_rate)), sourceRate: toPlainString(fromDb(r.source_rate)), markupPercent: toPlainString(fromDb(r.markup_percent)),
      source: r.source, rateAt: r.rate_at, updatedAt: r.updated_at, stale: now - r.rate_at.getTime() > maxAge,
    })),
    sources: sources.map((s) => {
      const f = fetches.rows.find((x) => x.source === s.name);
      return { source: s.name, currency: s.currency, lastAttemptAt: f?.last_attempt_at ?? null, lastSuccessAt: f?.last_success_at ?? null, lastError: f?.last_error ?? null };
    }),
    markups: Object.fromEntries(markups.rows.map((m) => [m.currency, toPlainString(fromDb(m.markup_percent))])),
  };
}
