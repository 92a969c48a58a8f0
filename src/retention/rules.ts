// The pure rules of retention: which rows of a walked batch may go, where their archive file
// lives, and what a cursor or id past retention is. No I/O here (src/retention/worker.ts does it).

/** Rows older than this leave their table: `days` before `now`. */
export function cutoff(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}

export interface WalkedRow {
  id: number;
  /** When the row was written (events) or finished (notifications: delivered or failed). */
  created_at: Date;
}

/**
 * Of rows read in id order, the ids old enough to go and whether the walk reached its frontier.
 * Ids follow creation time up to one transaction's length (a row's time is its transaction's
 * start), so the first row at or past the cutoff ends the walk: what lies beyond is newer, and
 * a slightly older row behind a newer one is taken on a later pass, once the cutoff has moved.
 * `keep` says which old rows must stay for now (an event whose notification is still kept).
 */
export function pickBatch<R extends WalkedRow>(rows: R[], limit: number, before: Date, keep: (r: R) => boolean = () => false): { take: R[]; lastId: number | null; done: boolean } {
  const take: R[] = [];
  let lastId: number | null = null;
  for (const r of rows) {
    if (r.created_at.getTime() >= before.getTime()) return { take, lastId, done: true };
    lastId = r.id;
    if (!keep(r)) take.push(r);
  }
  return { take, lastId, done: rows.length < limit };
}

/** UTC day of a time, the archive's directory. */
export function dayOf(t: Date): string {
  return t.toISOString().slice(0, 10);
}

/** Groups rows by the UTC day of `at(row)`, days ascending, rows in their given order. */
export function byDay<R>(rows: R[], at: (r: R) => Date): [string, R[]][] {
  const groups = new Map<string, R[]>();
  for (const r of rows) {
    const d = dayOf(at(r));
    const g = groups.get(d);
    if (g) g.push(r);
    else groups.set(d, [r]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

const pad = (n: number) => String(n).padStart(12, '0');

/**
 * The archive file of one table's rows of one day within one batch, relative to the archive
 * directory: `events/2026-08-28/events-000000000101-000000000600.ndjson.gz`. Ids are zero-padded
 * so that a day's files list in id order; a row is deleted once, so two files never share a name.
 */
export function archiveFileName(table: string, day: string, firstId: number, lastId: number): string {
  return `${table}/${day}/${table}-${pad(firstId)}-${pad(lastId)}.ndjson.gz`;
}

/** The highest id per merchant among rows (what retention_horizons keeps). */
export function horizons(rows: { id: number; merchant_id: number }[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of rows) out.set(r.merchant_id, Math.max(out.get(r.merchant_id) ?? 0, r.id));
  return out;
}

/**
 * What a cursor or id that matches no row is: 'archived' when the merchant's rows up to at least
 * that id have been archived (it was served once; retention took it), 'unknown' otherwise.
 */
export function missingIdKind(id: number, horizon: number | null): 'archived' | 'unknown' {
  return horizon !== null && id <= horizon ? 'archived' : 'unknown';
}

/** The start of the UTC month holding `t`. */
export function monthStart(t: Date): Date {
  return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1));
}

/** The start of the UTC month `n` months after the one holding `t` (n may be negative). */
export function addMonths(t: Date, n: number): Date {
  return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + n, 1));
}

/** The months whose partitions must exist at `now`: the current one and `ahead` after it. */
export function monthsAhead(now: Date, ahead: number): Date[] {
  return Array.from({ length: ahead + 1 }, (_, i) => addMonths(now, i));
}

/** A month partition's name: `events_p202611` (what migration 091's caja_month_partition creates). */
export function partitionName(table: string, month: Date): string {
  return `${table}_p${month.getUTCFullYear()}${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The month a partition of `table` holds, from its name; null for any other name (the default partition). */
export function monthOfPartition(table: string, name: string): Date | null {
  const m = new RegExp(`^${table}_p(\\d{4})(\\d{2})$`).exec(name);
  if (!m) return null;
  const month = Number(m[2]);
  return month >= 1 && month <= 12 ? new Date(Date.UTC(Number(m[1]), month - 1, 1)) : null;
}

/** Whether a month partition lies wholly before the retention cutoff (its month has ended by then). */
export function monthExpired(month: Date, before: Date): boolean {
  return addMonths(month, 1).getTime() <= before.getTime();
}
