// The retention worker: every CAJA_RETENTION_INTERVAL_SECONDS it archives and deletes, in batches,
// delivered or failed notifications (with their attempts) finished longer ago than
// CAJA_RETENTION_NOTIFICATIONS_DAYS, then events older than CAJA_RETENTION_EVENTS_DAYS that no
// notification names any more. Each batch is one short transaction holding a transaction-level
// advisory lock, so one batch runs at a time across every process (a process that does not get
// the lock skips its pass), and a pooler in transaction mode keeps working (no session lock).
// Deposit, refund and cashout status history is never deleted: the contract shows it for every
// deposit (docs/operations.md, "Retention and archiving").
import type { AppContext } from '../config/context.ts';
import { type Queryable, violatesConstraint } from '../db/db.ts';
import { periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { attemptsSince } from '../notifications/store.ts';
import { type PendingFile, recoverPartials, settleFiles, writeArchiveFile } from './archive.ts';
import { recordHorizons } from './horizons.ts';
import { retirePartitions, RETENTION_LOCK_ID as LOCK_ID } from './partitions.ts';
import { byDay, cutoff, pickBatch } from './rules.ts';

/** A pass stops after this long and the next tick goes on: a backlog never holds shutdown. */
const PASS_BUDGET_MS = 10_000;

export type BatchResult = { busy: true } | { busy: false; archived: number; lastId: number | null; done: boolean };

interface Kind {
  table: 'notifications' | 'events';
  /** The month-partitioned table whose whole months are retired before the row batches run. */
  partitioned: 'notification_attempts' | 'events';
  days: (ctx: AppContext) => number | null;
  /** One batch inside the transaction: walk from `after`, archive and delete what may go. */
  run: (q: Queryable, ctx: AppContext, after: number, before: Date, pending: PendingFile[]) => Promise<{ archived: number; lastId: number | null; done: boolean }>;
}

interface Walked {
  id: number;
  merchant_id: number;
  created_at: Date;
}

async function archiveRows(q: Queryable, ctx: AppContext, table: string, rows: { id: number; created_at: Date; json: string }[], pending: PendingFile[]): Promise<void> {
  for (const [day, group] of byDay(rows, (r) => r.created_at)) {
    pending.push(await writeArchiveFile(q, ctx.config.retention.archiveDir, table, day, group));
  }
}

/**
 * Notifications walk in id order (their creation order) and go once delivered or failed for
 * longer than the period and not held by a delivery; the rows selected again FOR UPDATE SKIP
 * LOCKED, so a resend or a claim racing the batch either wins (the row stays) or waits for it.
 */
const notifications: Kind = {
  table: 'notifications',
  partitioned: 'notification_attempts',
  days: (ctx) => ctx.config.retention.notificationsDays,
  async run(q, ctx, after, before, pending) {
    const limit = ctx.config.retention.batchRows;
    const { rows } = await q.query<Walked & { status: string; finished_at: Date | null; lease_until: Date | null }>(
      `SELECT id, merchant_id, created_at, status, finished_at, lease_until FROM notifications WHERE id > $1 ORDER BY id LIMIT $2`,
      [after, limit],
    );
    const expired = (r: { status: string; finished_at: Date | null; lease_until: Date | null }) =>
      r.status !== 'pending' && r.finished_at !== null && r.finished_at < before && r.lease_until === null;
    const batch = pickBatch(rows, limit, before, (r) => !expired(r));
    if (batch.take.length === 0) return { archived: 0, lastId: batch.lastId, done: batch.done };
    const { rows: locked } = await q.query<Walked & { json: string }>(
      `SELECT id, merchant_id, created_at, row_to_json(n)::text AS json FROM notifications n
       WHERE id = ANY($1::bigint[]) AND status <> 'pending' AND finished_at < $2 AND lease_until IS NULL
       ORDER BY id FOR UPDATE SKIP LOCKED`,
      [batch.take.map((r) => r.id), before],
    );
    if (locked.length === 0) return { archived: 0, lastId: batch.lastId, done: batch.done };
    const attempts = await deleteWithAttempts(q, locked.map((r) => r.id), attemptsSince(locked.map((r) => r.created_at)));
    await archiveRows(q, ctx, 'notifications', locked, pending);
    if (attempts.length) await archiveRows(q, ctx, 'notification_attempts', attempts, pending);
    await recordHorizons(q, 'notifications', locked);
    return { archived: locked.length + attempts.length, lastId: batch.lastId, done: batch.done };
  },
};

/** The attempts of a batch of notifications, as archived, from a created_at on ('-infinity': every month). */
const BATCH_ATTEMPTS_SQL = `SELECT id, created_at, row_to_json(a)::text AS json FROM notification_attempts a
  WHERE notification_id = ANY($1::bigint[]) AND created_at >= $2::timestamptz ORDER BY id`;
const DELETE_BATCH_ATTEMPTS_SQL = 'DELETE FROM notification_attempts WHERE notification_id = ANY($1::bigint[]) AND created_at >= $2::timestamptz';

/**
 * Deletes the notifications `ids` and their attempts, answering the attempts as they were (for the
 * archive). The attempts are read and deleted from `since` on (attemptsSince, store.ts: the months
 * that can hold them), so PostgreSQL reads only those months' partitions. An attempt older than
 * that (written outside the rule: back-dated by hand) would still name its notification, and the
 * foreign key fails the notifications' delete: then all three run again over every month. So no
 * attempt outlives its notification, and none is deleted without being read for the archive.
 */
async function deleteWithAttempts(q: Queryable, ids: number[], since: Date): Promise<{ id: number; created_at: Date; json: string }[]> {
  const take = async (from: Date | '-infinity') => {
    const { rows } = await q.query<{ id: number; created_at: Date; json: string }>(BATCH_ATTEMPTS_SQL, [ids, from]);
    await q.query(DELETE_BATCH_ATTEMPTS_SQL, [ids, from]);
    await q.query('DELETE FROM notifications WHERE id = ANY($1::bigint[])', [ids]);
    return rows;
  };
  await q.query('SAVEPOINT bounded_attempts');
  try {
    const rows = await take(since);
    await q.query('RELEASE SAVEPOINT bounded_attempts');
    return rows;
  } catch (err) {
    if (!violatesConstraint(err, '23503', 'notification_attempts_notification_id_fkey')) throw err;
    await q.query('ROLLBACK TO SAVEPOINT bounded_attempts');
    return take('-infinity');
  }
}

/** Events walk in id order and go once older than the period and named by no notification. */
const events: Kind = {
  table: 'events',
  partitioned: 'events',
  days: (ctx) => ctx.config.retention.eventsDays,
  async run(q, ctx, after, before, pending) {
    const limit = ctx.config.retention.batchRows;
    const { rows } = await q.query<Walked>(`SELECT id, merchant_id, created_at FROM events WHERE id > $1 ORDER BY id LIMIT $2`, [after, limit]);
    const batch = pickBatch(rows, limit, before);
    if (batch.take.length === 0) return { archived: 0, lastId: batch.lastId, done: batch.done };
    const { rows: locked } = await q.query<Walked & { json: string }>(
      `SELECT id, merchant_id, created_at, row_to_json(e)::text AS json FROM events e
       WHERE id = ANY($1::bigint[]) AND created_at < $2 AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.event_id = e.id)
       ORDER BY id FOR UPDATE SKIP LOCKED`,
      [batch.take.map((r) => r.id), before],
    );
    if (locked.length === 0) return { archived: 0, lastId: batch.lastId, done: batch.done };
    await archiveRows(q, ctx, 'events', locked, pending);
    await q.query('DELETE FROM events WHERE id = ANY($1::bigint[])', [locked.map((r) => r.id)]);
    await recordHorizons(q, 'events', locked);
    return { archived: locked.length, lastId: batch.lastId, done: batch.done };
  },
};

/** Notifications first: an event leaves only once its notifications have. */
const KINDS: Kind[] = [notifications, events];

/**
 * One batch of one table in one transaction, or busy when another process holds the retention
 * lock. Files are renamed into place after the commit.
 */
export async function retentionBatch(ctx: AppContext, table: Kind['table'], after: number): Promise<BatchResult> {
  const kind = KINDS.find((k) => k.table === table)!;
  const days = kind.days(ctx);
  if (days === null) return { busy: false, archived: 0, lastId: null, done: true };
  const before = cutoff(ctx.now(), days);
  const pending: PendingFile[] = [];
  const dir = ctx.config.retention.archiveDir;
  const result = await ctx.db.tx(async (q): Promise<BatchResult> => {
    const { rows } = await q.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${LOCK_ID}) AS locked`);
    if (!rows[0]?.locked) return { busy: true };
    await recoverPartials(q, dir);
    return { busy: false, ...(await kind.run(q, ctx, after, before, pending)) };
  });
  await settleFiles(dir, pending);
  for (const f of pending) ctx.metrics.retentionArchived.inc({ table: f.table }, f.rows);
  return result;
}

/**
 * One pass: for each table, first the whole months past retention (partitions.ts: detached,
 * archived, dropped), then batches of the rows left (the default partition, the expired rows of a
 * month that had to stay, the outbox), until it reaches its frontier, another process holds the
 * lock, or the budget is spent. A month is retired whole even past the budget.
 */
export async function runRetention(ctx: AppContext, budgetMs = PASS_BUDGET_MS): Promise<Record<string, number>> {
  const archived: Record<string, number> = {};
  const end = Date.now() + budgetMs;
  for (const kind of KINDS) {
    let after = 0;
    archived[kind.table] = 0;
    for (const r of await retirePartitions(ctx, kind.partitioned)) {
      if (r.outcome === 'busy') return archived;
      if (r.outcome === 'archived') archived[kind.partitioned] = (archived[kind.partitioned] ?? 0) + r.rows;
      if (r.outcome === 'kept') ctx.log.info({ partition: r.partition, reason: r.reason }, 'retention: month kept');
    }
    for (;;) {
      const r = await retentionBatch(ctx, kind.table, after);
      if (r.busy) return archived;
      archived[kind.table] += r.archived;
      if (r.done || r.lastId === null || Date.now() > end) break;
      after = r.lastId;
    }
    if (Date.now() > end) break;
  }
  return archived;
}

export function retentionWorker(ctx: AppContext): Worker | null {
  const r = ctx.config.retention;
  if (r.eventsDays === null && r.notificationsDays === null) return null;
  return periodicWorker(ctx, 'retention', r.intervalMs, async () => {
    const archived = await runRetention(ctx);
    if (Object.values(archived).some((n) => n > 0)) ctx.log.info({ archived }, 'retention: rows archived and deleted');
  });
}
