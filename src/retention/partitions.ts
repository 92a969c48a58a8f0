// Month partitions of events, notification attempts and status history (migration 091,
// docs/operations.md "Partitions"). The partition worker creates the current month's and the next
// two months' partitions ahead of time (caja_month_partition: idempotent, serialised by an
// advisory lock, so any number of processes may run it). Retention retires whole months of events
// and attempts: a month wholly older than its period, holding no row that must stay, is detached
// (a short transaction), then archived into files and dropped in one transaction under the
// retention lock, with the same crash protocol as the row batches (archive.ts). Status history
// is partitioned but never retired (the contract shows it for as long as its deposit exists).
import type { AppContext } from '../config/context.ts';
import type { Db, Queryable } from '../db/db.ts';
import { periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { type PendingFile, recoverPartials, settleFiles, writeArchiveFile } from './archive.ts';
import { recordHorizons } from './horizons.ts';
import { cutoff, dayOf, monthExpired, monthOfPartition, monthsAhead } from './rules.ts';

/** The month-partitioned tables. */
export const PARTITIONED_TABLES = ['events', 'notification_attempts', 'deposit_status_changes', 'refund_status_changes', 'cashout_status_changes'] as const;
/** Months created ahead of the current one. */
export const AHEAD_MONTHS = 2;
/** Rows per archive file of a retired month (each file is read whole by `caja archive restore`). */
const FILE_ROWS = 50_000;
/** The retention lock (worker.ts): one archiving transaction at a time across every process. */
export const RETENTION_LOCK_ID = 4242_0036;
/** How often the partition worker looks (creating ahead is idempotent and cheap). */
const ENSURE_INTERVAL_MS = 3_600_000;

/** Creates every partition due at `now` that does not exist yet; answers the names created. */
export async function ensurePartitions(db: Db, now: Date): Promise<string[]> {
  const created: string[] = [];
  for (const table of PARTITIONED_TABLES) {
    for (const month of monthsAhead(now, AHEAD_MONTHS)) {
      // One transaction per partition: creating one locks its table only briefly.
      const { rows } = await db.query<{ created: boolean }>('SELECT caja_month_partition($1, $2) AS created', [table, month]);
      if (rows[0]?.created) created.push(`${table}@${dayOf(month).slice(0, 7)}`);
    }
  }
  return created;
}

/** The month partitions of a table: attached (in the table) or detached and not yet archived. */
export async function monthPartitions(q: Queryable, table: string): Promise<{ name: string; month: Date; attached: boolean }[]> {
  const { rows } = await q.query<{ name: string; attached: boolean }>(
    `SELECT c.relname AS name, EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid) AS attached
     FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname LIKE $1`,
    [`${table}_p%`],
  );
  return rows
    .map((r) => ({ name: r.name, attached: r.attached, month: monthOfPartition(table, r.name) }))
    .filter((r): r is { name: string; attached: boolean; month: Date } => r.month !== null)
    .sort((a, b) => a.month.getTime() - b.month.getTime());
}

export type RetireOutcome = { partition: string; outcome: 'archived'; rows: number; files: number } | { partition: string; outcome: 'kept'; reason: string } | { partition: string; outcome: 'busy' };

interface RetiredKind {
  table: 'events' | 'notification_attempts';
  days: (ctx: AppContext) => number | null;
  /** Why the partition must stay (inside the detaching transaction), or null when it may go. */
  keep: (q: Queryable, part: string, before: Date) => Promise<string | null>;
  /** Raises the API's horizons over the partition's rows (events only). */
  horizons: boolean;
}

/**
 * Attempts go with their notifications: a month of attempts leaves only when every notification
 * they belong to is itself past retention (finished before the cutoff, not pending, not leased).
 * Those notifications are locked FOR SHARE until the detach commits, so a resend racing it waits.
 */
const attempts: RetiredKind = {
  table: 'notification_attempts',
  days: (ctx) => ctx.config.retention.notificationsDays,
  horizons: false,
  async keep(q, part, before) {
    // A plain read first, stopping at the first notification still kept: a month that must stay
    // is found so on every pass without locking its notifications again and again.
    const { rows: first } = await q.query<{ held: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM notifications n WHERE n.id IN (SELECT notification_id FROM ${part})
           AND NOT (n.status <> 'pending' AND n.finished_at < $1 AND n.lease_until IS NULL)) AS held`,
      [before],
    );
    if (first[0]?.held) return 'a notification of its attempts is still kept (pending, leased or finished within the period)';
    const { rows } = await q.query<{ kept: number }>(
      `WITH held AS (
         SELECT n.status, n.finished_at, n.lease_until FROM notifications n
         WHERE n.id IN (SELECT notification_id FROM ${part}) FOR SHARE OF n)
       SELECT count(*)::int AS kept FROM held WHERE NOT (status <> 'pending' AND finished_at < $1 AND lease_until IS NULL)`,
      [before],
    );
    const kept = rows[0]?.kept ?? 0;
    return kept > 0 ? `${kept} of its notifications are still kept (pending, leased or finished within the period)` : null;
  },
};

/** Events go once no notification names any of them (their notifications have left first). */
const events: RetiredKind = {
  table: 'events',
  days: (ctx) => ctx.config.retention.eventsDays,
  horizons: true,
  async keep(q, part) {
    const { rows } = await q.query<{ named: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM notifications n
         WHERE n.event_id BETWEEN (SELECT min(id) FROM ${part}) AND (SELECT max(id) FROM ${part})
           AND EXISTS (SELECT 1 FROM ${part} e WHERE e.id = n.event_id)) AS named`,
    );
    return rows[0]?.named ? 'a notification still names one of its events' : null;
  },
};

const KINDS: Record<RetiredKind['table'], RetiredKind> = { events, notification_attempts: attempts };

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Step 1, one short transaction under the retention lock: checks that nothing in the partition
 * must stay, raises the horizons, and detaches it (ACCESS EXCLUSIVE on the parent until the
 * commit: writers of the table wait for this transaction, which reads no more than the check).
 */
async function detach(ctx: AppContext, kind: RetiredKind, part: string, before: Date): Promise<'detached' | 'busy' | string> {
  return ctx.db.tx(async (q) => {
    const { rows } = await q.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK_ID}) AS locked`);
    if (!rows[0]?.locked) return 'busy';
    // Another process may have retired it since this one listed it: then only what is left is done.
    const { rows: still } = await q.query<{ attached: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = to_regclass($2)) AS attached',
      [part, kind.table],
    );
    if (!still[0]?.attached) return 'detached';
    const reason = await kind.keep(q, ident(part), before);
    if (reason !== null) return reason;
    if (kind.horizons) {
      const { rows: h } = await q.query<{ id: number; merchant_id: number }>(`SELECT merchant_id, max(id) AS id FROM ${ident(part)} GROUP BY merchant_id`);
      await recordHorizons(q, 'events', h.map((r) => ({ id: Number(r.id), merchant_id: r.merchant_id })));
    }
    await q.query(`ALTER TABLE ${ident(kind.table)} DETACH PARTITION ${ident(part)}`);
    return 'detached';
  });
}

/**
 * Step 2, one transaction under the retention lock: the detached table's rows are written to
 * fsynced partial files in id order, recorded in the manifest, and the table is dropped; after
 * the commit the files are moved into place. A crash before the commit leaves the detached table
 * (archived again from the start on the next pass) and partial files without a manifest row
 * (removed); after it, partial files with one (moved into place).
 */
async function archiveDetached(ctx: AppContext, table: string, part: string, month: Date): Promise<{ rows: number; files: number } | 'busy'> {
  const dir = ctx.config.retention.archiveDir;
  const pending: PendingFile[] = [];
  const result = await ctx.db.tx(async (q) => {
    // Files and a whole month's rows: no statement deadline for this transaction.
    await q.query('SET LOCAL statement_timeout = 0');
    const { rows } = await q.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK_ID}) AS locked`);
    if (!rows[0]?.locked) return 'busy' as const;
    await recoverPartials(q, dir);
    const { rows: present } = await q.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [part]);
    if (!present[0]?.present) return { rows: 0, files: 0 };
    let after = 0;
    let total = 0;
    for (;;) {
      const { rows: page } = await q.query<{ id: number; json: string }>(
        `SELECT id, row_to_json(t)::text AS json FROM ${ident(part)} t WHERE id > $1 ORDER BY id LIMIT ${FILE_ROWS}`,
        [after],
      );
      if (page.length === 0) break;
      const batch = page.map((r) => ({ id: Number(r.id), json: r.json }));
      pending.push(await writeArchiveFile(q, dir, table, dayOf(month), batch));
      total += batch.length;
      after = batch[batch.length - 1]!.id;
      if (page.length < FILE_ROWS) break;
    }
    await q.query(`DROP TABLE ${ident(part)}`);
    return { rows: total, files: pending.length };
  });
  await settleFiles(dir, pending);
  if (result !== 'busy' && result.rows > 0) ctx.metrics.retentionArchived.inc({ table }, result.rows);
  return result;
}

/**
 * Retires the months of one table that are past its period: first any partition a previous pass
 * detached and did not archive, then each attached month wholly older than the cutoff, oldest
 * first. A month holding a row that must stay is kept (and its expired rows left to the row
 * batches); the default partition is never detached.
 */
export async function retirePartitions(ctx: AppContext, table: RetiredKind['table']): Promise<RetireOutcome[]> {
  const kind = KINDS[table];
  const days = kind.days(ctx);
  if (days === null) return [];
  const before = cutoff(ctx.now(), days);
  const out: RetireOutcome[] = [];
  for (const p of await monthPartitions(ctx.db, table)) {
    if (p.attached) {
      if (!monthExpired(p.month, before)) break;
      const step = await detach(ctx, kind, p.name, before);
      if (step === 'busy') return [...out, { partition: p.name, outcome: 'busy' }];
      if (step !== 'detached') {
        out.push({ partition: p.name, outcome: 'kept', reason: step });
        continue;
      }
    }
    const archived = await archiveDetached(ctx, table, p.name, p.month);
    if (archived === 'busy') return [...out, { partition: p.name, outcome: 'busy' }];
    out.push({ partition: p.name, outcome: 'archived', ...archived });
  }
  return out;
}

/** Keeps the partitions ahead: at start, then every hour, in every process (idempotent). */
export function partitionWorker(ctx: AppContext): Worker {
  return periodicWorker(
    ctx,
    'partitions',
    ENSURE_INTERVAL_MS,
    async () => {
      const created = await ensurePartitions(ctx.db, ctx.now());
      if (created.length) ctx.log.info({ created }, 'partitions: months created ahead');
    },
    { atStart: true },
  );
}
