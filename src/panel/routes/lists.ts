// What the panel's lists share: the filters (dates, status, country, search, cursor), the page
// size, the CSV export read in batches (audited when asked for), and the country options.
import { Readable } from 'node:stream';
import { ACCEPTED_COUNTRIES } from '../../domain/countries.ts';
import { parseId } from '../../domain/ids.ts';
import { csvLine } from '../services/csv.ts';
import type { AppContext } from '../../config/context.ts';
import { audit } from '../services/audit.ts';
import * as V from '../views/pages.ts';
import type { Ctx, Query, Result } from './gate.ts';

export const PAGE_SIZE = 50;
export const EXPORT_BATCH = 500;

function dateParam(v: string | undefined, plusDay = false): Date | undefined | null {
  if (!v) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
  const d = new Date(`${v}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return null;
  return plusDay ? new Date(d.getTime() + 86_400_000) : d;
}

/** The filters every list shares (dates, status, country, search, cursor), or what is wrong. */
export function listFilter(q: Query, statuses: readonly string[]) {
  const from = dateParam(q.from);
  const to = dateParam(q.to, true);
  if (from === null || to === null) return 'dates must be YYYY-MM-DD';
  if (q.status && !statuses.includes(q.status)) return 'unknown status';
  const before = parseId(q.before);
  if (q.before && before === null) return 'bad cursor';
  return {
    status: q.status || undefined, country: q.country?.trim().toUpperCase() || undefined,
    search: q.q?.slice(0, 200), from, to, before: before ?? undefined,
  };
}

/** A CSV of every row a filter selects, read in batches as the response is written. */
export function csvStream<T>(header: string[], page: (before: number | undefined) => Promise<{ rows: T[]; next: number | null }>, line: (r: T) => unknown[]): Readable {
  return Readable.from((async function* () {
    yield '\uFEFF' + csvLine(header);
    let before: number | undefined;
    for (;;) {
      const { rows, next } = await page(before);
      if (rows.length) yield rows.map((r) => csvLine(line(r))).join('');
      if (next === null) return;
      before = next;
    }
  })());
}

/**
 * A list's CSV download (deposits, cashouts): a bad filter is a 400 page; otherwise the export is
 * audited with its filter, then every row the filter selects is streamed in batches.
 */
export async function listExport<F extends object, T>(
  ctx: AppContext, c: Ctx, list: 'deposits' | 'cashouts', f: F | string, header: string[],
  page: (filter: F & { before: number | undefined }) => Promise<{ rows: T[]; next: number | null }>, line: (r: T) => unknown[],
): Promise<Result> {
  if (typeof f === 'string') return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', f), 400, c.f);
  await audit(ctx.db, c.s.actor, `${list}.exported`, null, { filter: c.query }, ctx.now());
  return { filename: `${list}.csv`, csv: csvStream(header, (before) => page({ ...f, before }), line) };
}

/** The accepted countries as the options of a select. */
export const countryOptions = (): [string, string][] => ACCEPTED_COUNTRIES.map((x) => [x.code, `${x.code} — ${x.name}`]);
