// Which hand-made movements of merchant money wait for a second operator, and where. In
// production every one does: a balance adjustment (console, admin API, CLI), a reconciliation
// match that credits a merchant (a PENDING deposit completed, a CANCELLED one taken as a late
// payment, a cashout's return) and a manual exchange rate outside its band around the source's
// last rate (or with no source rate). Each becomes a request (approvals.ts) another operator
// approves in the console. Staging moves test money: these apply at once, as before.
import type { AppContext } from '../config/context.ts';
import { type AdjustmentRow, adjustBalance } from '../balances/service.ts';
import type { Audit } from '../audit/audit.ts';
import { cmp, type Decimal, neg, percentOf, sub, toPlainString } from '../domain/money.ts';
import { setManualRates, sourceRates } from '../rates/service.ts';
import type { Queryable } from '../db/db.ts';
import { type ExceptionView, importStatement, type ImportResult, type Resolution, resolutionCredits, resolveException } from '../reconciliation/service.ts';
import type { StatementFormat } from '../reconciliation/statement.ts';
import { type AdjustmentAsk, insertRequest, requestAdjustment } from './approvals.ts';
import { actorName, type OpsActor } from './audit.ts';

/** A request waiting for a second operator. */
export interface Pending {
  status: 'pending';
  approval_id: number;
}

const fourEyes = (ctx: Pick<AppContext, 'config'>) => !ctx.config.relaxedChecks;

/**
 * A balance adjustment: in production a request (the requester is the operator, the admin token,
 * or the CLI), in staging booked at once with `audit` in its transaction.
 */
export async function adjustOrRequest(ctx: Pick<AppContext, 'db' | 'now' | 'config'>, by: OpsActor, merchantId: number, a: AdjustmentAsk, audit: Audit<AdjustmentRow>,
  actor = actorName(by)): Promise<Pending | { status: 'applied'; row: AdjustmentRow }> {
  if (fourEyes(ctx)) return { status: 'pending', approval_id: await requestAdjustment(ctx, by, merchantId, a) };
  const row = await adjustBalance(ctx.db, { merchantId, ...a, actor }, audit);
  return { status: 'applied', row };
}

/**
 * A reconciliation exception's resolution: in production one that credits a merchant becomes a
 * request (one open per exception), applied when another operator approves; anything else now.
 */
export async function resolveOrRequest(ctx: AppContext, exceptionId: number, resolution: Resolution, by: OpsActor): Promise<Pending | { status: 'applied'; exception: ExceptionView }> {
  if (fourEyes(ctx)) {
    const pending = await ctx.db.tx(async (q) => {
      if (!(await resolutionCredits(q, exceptionId, resolution))) return null;
      return requestMatch(q, ctx, exceptionId, resolution, by);
    });
    if (pending !== null) return { status: 'pending', approval_id: pending };
  }
  return { status: 'applied', exception: await resolveException(ctx, exceptionId, resolution, by) };
}

/** The open request of an exception's crediting match, or a new one. */
async function requestMatch(q: Queryable, ctx: Pick<AppContext, 'now'>, exceptionId: number, resolution: Resolution, by: OpsActor): Promise<number> {
  // Concurrent asks for one exception wait here for each other: the second finds the first's request.
  await q.query('SELECT id FROM reconciliation_exceptions WHERE id = $1 FOR UPDATE', [exceptionId]);
  const open = await q.query<{ id: number }>(
    "SELECT id FROM approvals WHERE kind = 'reconciliation_match' AND status = 'pending' AND payload ->> 'exception_id' = $1", [String(exceptionId)]);
  if (open.rows[0]) return open.rows[0].id;
  const target = 'target' in resolution ? resolution.target : null;
  const merchant = target
    ? (await q.query<{ merchant_id: number }>(`SELECT merchant_id FROM ${target.type === 'deposit' ? 'deposits' : target.type === 'refund' ? 'refunds' : 'cashouts'} WHERE id = $1`, [target.id])).rows[0]?.merchant_id ?? null
    : null;
  return insertRequest(q, 'reconciliation_match', merchant, null, {
    exception_id: String(exceptionId), resolution: JSON.stringify(resolution), target: target ? `${target.type} ${target.id}` : '',
  }, by, ctx.now());
}

/**
 * A statement import: in production a match of the rules that would credit a merchant is held
 * (an exception awaiting approval) with a request, asked by whoever imported, in the import's
 * transaction; another operator's approval applies it.
 */
export async function importWithFourEyes(ctx: AppContext, format: StatementFormat | 'camt', bytes: Buffer | string, by: OpsActor): Promise<ImportResult> {
  if (!fourEyes(ctx)) return importStatement(ctx, format, bytes, by);
  return importStatement(ctx, format, bytes, by, async (q, held) => {
    for (const h of held) await requestMatch(q, ctx, h.exceptionId, { action: 'match', target: h.target }, by);
  });
}

/** Whether `rate` lies within `band` percent of `reference`. */
export function withinBand(rate: Decimal, reference: Decimal, bandPercent: number): boolean {
  const d = sub(rate, reference);
  return cmp(cmp(d, neg(d)) < 0 ? neg(d) : d, percentOf(reference, String(bandPercent), 12)) <= 0;
}

/**
 * Manual rates: in production those within the band around the source's last rate apply now; each
 * other (outside it, or with no source rate) becomes a request. Staging applies all at once.
 */
export async function setRatesOrRequest(ctx: AppContext, rates: Record<string, Decimal>, by: OpsActor): Promise<{ applied: string[]; pending: (Pending & { currency: string })[] }> {
  const now: Record<string, Decimal> = {};
  const asks: [string, Decimal, Decimal | null][] = [];
  if (fourEyes(ctx)) {
    const refs = await sourceRates(ctx.db, Object.keys(rates));
    for (const [currency, rate] of Object.entries(rates)) {
      const ref = refs.get(currency) ?? null;
      if (ref !== null && withinBand(rate, ref, ctx.config.rates.manualBandPercent)) now[currency] = rate;
      else asks.push([currency, rate, ref]);
    }
  } else Object.assign(now, rates);
  if (Object.keys(now).length) await setManualRates(ctx, now, by);
  const pending = await ctx.db.tx(async (q) => {
    const out: (Pending & { currency: string })[] = [];
    for (const [currency, rate, ref] of asks) {
      const id = await insertRequest(q, 'exchange_rate', null, null, {
        currency, rate: toPlainString(rate), source_rate: ref === null ? '' : toPlainString(ref), band_percent: String(ctx.config.rates.manualBandPercent),
      }, by, ctx.now());
      out.push({ status: 'pending', approval_id: id, currency });
    }
    return out;
  });
  return { applied: Object.keys(now), pending };
}
