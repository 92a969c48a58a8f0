// Statements that come by themselves: the providers' own lists of a day (STP's reconciliation
// query of received and sent orders, the PSP's GET /pix with devoluções; the connectors'
// dayMovements) written as an ISO 20022 camt.054 of the provider account's day
// (camt-writer.ts) and imported through the very path an uploaded file takes
// (four-eyes importWithFourEyes → service.ts importStatement). docs/reconciliation.md.
//
// Idempotent without bookkeeping of its own: the file of a day is a function of what the provider
// lists, so a day fetched again with nothing new is the same file (recognised by its digest,
// nothing changes); a day fetched again with a late movement is a new notification whose known
// entries are stored once ("repeated") and only the new one is reconciled.
import { createHash } from 'node:crypto';
import type { AppContext } from '../config/context.ts';
import { type OpsActor, recordAudit } from '../audit/audit.ts';
import { ConnectorError, type ProviderDay } from '../connectors/payin.ts';
import { configuredConnectors } from '../connectors/registry.ts';
import { importWithFourEyes } from '../operators/four-eyes.ts';
import { camt054 } from './camt-writer.ts';
import { ReconciliationError } from './errors.ts';

export interface FetchedDay {
  connector: string;
  date: string;
  /** imported: a new statement; unchanged: the same day as fetched before; empty: no movement; failed: the provider could not be read. */
  status: 'imported' | 'unchanged' | 'empty' | 'failed';
  statement_id?: number;
  entries?: number;
  matched?: number;
  exceptions?: number;
  repeated?: number;
  error?: string;
}

/** The audit's name for what the worker imports. */
export const STATEMENTS_WORKER: OpsActor = { kind: 'token', id: 0, name: 'provider-statements-worker', ip: null };

/** The camt.054 of a provider account's day: its id (at most 35 characters) names the day and digests what it lists. */
export function providerDayFile(day: ProviderDay): string {
  const digest = createHash('sha256').update(JSON.stringify(day.movements)).digest('hex').slice(0, 16).toUpperCase();
  return camt054({
    statementId: `F${day.date.replaceAll('-', '')}${digest}`, account: { other: day.account }, currency: day.currency, date: day.date, opening: '0',
    movements: day.movements,
  });
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether a yyyy-mm-dd is a real calendar day. */
export const isDay = (d: string) => ISO_DAY.test(d) && new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) === d;

/**
 * Fetches one day from every configured connector that lists its days (or the one named) and
 * imports it. A provider that cannot be read is reported failed (and tried again at the next
 * pass); the others go on. Throws ReconciliationError 'invalid_day' for a bad day or a connector
 * that lists no days.
 */
export async function fetchProviderDay(ctx: AppContext, date: string, by: OpsActor, only?: string): Promise<FetchedDay[]> {
  if (!isDay(date)) throw new ReconciliationError('invalid_day', `date: ${date} is not a yyyy-mm-dd day`, ['date: must be a yyyy-mm-dd day']);
  if (date > ctx.now().toISOString().slice(0, 10)) throw new ReconciliationError('invalid_day', `date: ${date} has not begun`, ['date: must be today or before']);
  const connectors = (await configuredConnectors(ctx)).filter((c) => c.dayMovements && (!only || c.name === only));
  if (only && connectors.length === 0) throw new ReconciliationError('invalid_day', `connector: ${only} is not configured or lists no days`, ['connector: a configured connector that lists its days (stp, pix)']);
  const out: FetchedDay[] = [];
  for (const c of connectors) {
    let day: ProviderDay;
    try {
      day = await c.dayMovements!(date);
    } catch (err) {
      if (!(err instanceof ConnectorError)) throw err;
      ctx.log.warn({ connector: c.name, date, err: err.message }, 'provider statement: the provider could not be read');
      out.push({ connector: c.name, date, status: 'failed', error: err.message });
      continue;
    }
    if (day.movements.length === 0) {
      out.push({ connector: c.name, date, status: 'empty' });
      continue;
    }
    const r = await importWithFourEyes(ctx, 'camt054', providerDayFile(day), by);
    out.push({ connector: c.name, date, status: r.created ? 'imported' : 'unchanged', statement_id: r.statement_id, entries: r.entries, matched: r.matched, exceptions: r.exceptions, repeated: r.repeated });
  }
  // A fetch someone asked for is audited as asked (what it imported is audited by the import);
  // the worker's own passes are not, or every hour would add rows.
  if (by !== STATEMENTS_WORKER) {
    await recordAudit(ctx.db, { ops: by, action: 'reconciliation.fetch', subject: `day:${date}`, detail: { connector: only ?? null, results: out.map((o) => ({ connector: o.connector, status: o.status })) } });
  }
  return out;
}

/** The days a pass fetches: the `days` days before today (UTC), oldest first. */
export function daysToFetch(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - i) * 86_400_000).toISOString().slice(0, 10));
}

/** One pass of the worker: every recent closed day from every provider. */
export async function fetchRecentDays(ctx: AppContext): Promise<FetchedDay[]> {
  const out: FetchedDay[] = [];
  for (const date of daysToFetch(ctx.now(), ctx.config.providerStatements.days)) out.push(...(await fetchProviderDay(ctx, date, STATEMENTS_WORKER)));
  return out;
}
