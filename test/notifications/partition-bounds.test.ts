// Reads of notifications against the month partitions (migration 091): the notifications API
// reads no month of events for a notification written since migration 098 (it carries its event's
// type; one written before is read from its event), and a retention batch reads and deletes the attempts of its notifications only in the months that can
// hold them (from a day before the oldest notification on), yet archives every attempt, also one
// older than that; a notification archived before 098 is restored with its event's type. Which
// partitions a statement reads is taken from EXPLAIN of the statements caja sent, with the values
// it sent (PostgreSQL plans only the partitions those values allow); which ones it actually read,
// from EXPLAIN ANALYZE (a node never executed has no loops).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { commitEvent, notificationIdOf } from './helpers.ts';
import type { AppContext } from '../../src/config/context.ts';
import type { Db, Queryable } from '../../src/db/db.ts';
import { getNotification, listNotifications } from '../../src/notifications/store.ts';
import { ArchiveError, restoreArchiveFile } from '../../src/retention/archive.ts';
import { retentionBatch } from '../../src/retention/worker.ts';
import { addMonths, monthOfPartition, partitionName } from '../../src/retention/rules.ts';
import { archivedRows } from '../retention/helpers.ts';

const DAY = 86_400_000;

interface Sent {
  sql: string;
  params: unknown[];
}

/** The Queryable `q`, noting every statement sent through it. */
function noting(q: Queryable, sent: Sent[]): Queryable {
  return {
    query: (sql, params, opts) => {
      sent.push({ sql, params: params ?? [] });
      return q.query(sql, params, opts);
    },
    exec: (sql) => q.exec(sql),
  };
}

/** The context `ctx` whose database notes every statement sent, in and out of transactions. */
function notingContext(ctx: AppContext, sent: Sent[]): AppContext {
  const db = new Proxy(ctx.db, {
    get(target, p) {
      if (p === 'tx') return (fn: (q: Queryable) => Promise<unknown>, opts?: unknown) => target.tx((q) => fn(noting(q, sent)), opts as never);
      if (p === 'query') return noting(target, sent).query;
      const v = Reflect.get(target, p);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as Db;
  return Object.create(ctx, { db: { value: db } }) as AppContext;
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/**
 * Every node of a statement's plan (subplans included: they are among a node's Plans), with the
 * values it was sent with; `analyze` runs it (EXPLAIN ANALYZE: read-only statements only).
 */
async function planNodes(db: Db, s: Sent, analyze = false): Promise<PlanNode[]> {
  const { rows } = await db.query<Record<string, unknown>>(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${s.sql}`, s.params);
  const plan = Object.values(rows[0]!)[0];
  const [{ Plan }] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ Plan: PlanNode }];
  const all = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(all)];
  return all(Plan);
}

/** The tables and partitions a statement's plan reads, with the values it was sent with. */
async function scanned(db: Db, s: Sent): Promise<string[]> {
  return [...new Set((await planNodes(db, s)).flatMap((n) => n['Relation Name'] ?? []))].sort();
}

/**
 * The scans of `table` (or of its partitions) that a read-only statement executed, with the values
 * it was sent with: a node never executed has `Actual Loops` 0 (or is absent, pruned when the
 * statement ran).
 */
async function executedScans(db: Db, table: string, s: Sent): Promise<string[]> {
  return (await planNodes(db, s, true))
    .filter((n) => n['Relation Name'] !== undefined && (n['Relation Name'] === table || n['Relation Name'].startsWith(`${table}_`)) && Number(n['Actual Loops'] ?? 0) > 0)
    .map((n) => `${n['Relation Name']} (${String(n['Actual Loops'])} loops)`);
}

/** The month partitions of `table` a plan reads (null: the default partition). */
function monthsRead(table: string, relations: string[]): (Date | null)[] {
  return relations.filter((r) => r.startsWith(`${table}_`)).map((r) => (r === `${table}_default` ? null : monthOfPartition(table, r)));
}

/** A notification with its event, as the outbox writes them, then moved back to `at` (the test's clock). */
async function oldNotification(s: TestServer, merchantId: number, at: Date, finished: Date | null): Promise<number> {
  const { eventId } = await commitEvent(s.ctx, { merchantId, url: 'https://merchant.example/hook' });
  const id = await notificationIdOf(s.ctx, eventId);
  await s.ctx.db.tx(async (q) => {
    await q.query('UPDATE events SET created_at = $2 WHERE id = $1', [eventId, at]);
    await q.query(
      `UPDATE notifications SET created_at = $2, status = CASE WHEN $3::timestamptz IS NULL THEN 'pending' ELSE 'delivered' END,
              finished_at = $3, attempt_count = 3 WHERE id = $1`,
      [id, at, finished],
    );
  });
  return id;
}

async function addAttempts(s: TestServer, notificationId: number, times: Date[]): Promise<number[]> {
  const { rows } = await s.ctx.db.query<{ id: number }>(
    `INSERT INTO notification_attempts (notification_id, attempt_no, started_at, url, status_code, latency_ms, created_at)
     SELECT $1, k, t, 'https://merchant.example/hook', 200, 40, t FROM unnest($2::timestamptz[]) WITH ORDINALITY AS v(t, k) RETURNING id`,
    [notificationId, times],
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

const partitionOf = async (s: TestServer, id: number) =>
  (await s.ctx.db.query<{ p: string }>('SELECT tableoid::regclass::text AS p FROM notification_attempts WHERE id = $1', [id])).rows[0]?.p;

for (const backend of backends()) {
  describe(`reads of notifications bounded by month (${backend})`, () => {
    let server: TestServer;
    let acme: Credentials;
    let other: Credentials;
    const dir = mkdtempSync(join(tmpdir(), 'caja-archive-'));
    const now = new Date();
    // Two months back, ten minutes into its month: its attempts may begin in the month before.
    const t0 = new Date(addMonths(now, -2).getTime() + 10 * 60_000);
    let spanning: number;
    let spanningAttempts: number[];
    let backDated: number;
    let backDatedAttempts: number[];

    before(async () => {
      server = await startTestServer(backend, { CAJA_RETENTION_NOTIFICATIONS_DAYS: '1', CAJA_ARCHIVE_DIR: dir });
      acme = await createMerchant(server.url, 'Acme');
      other = await createMerchant(server.url, 'Other');
      // Six months back: a year's worth of partitions is what makes an unbounded read costly.
      for (const table of ['events', 'notification_attempts']) {
        for (let k = -6; k < 0; k++) await server.ctx.db.query('SELECT caja_month_partition($1, $2)', [table, addMonths(now, k)]);
      }
      // Retention walks notifications in id order and stops at the first one within the period:
      // the old ones are written first.
      spanning = await oldNotification(server, acme.merchant_id, t0, new Date(now.getTime() - 2 * DAY));
      // Its first attempt's transaction began before the notification's and wrote after it (the
      // month before), the second one right after, the third a resend this week.
      spanningAttempts = await addAttempts(server, spanning, [new Date(t0.getTime() - 30 * 60_000), new Date(t0.getTime() + 5 * 60_000), new Date(now.getTime() - 3 * DAY)]);
      // Pending for now; one of its attempts was back-dated by hand further than the rule allows.
      backDated = await oldNotification(server, acme.merchant_id, t0, null);
      backDatedAttempts = await addAttempts(server, backDated, [addMonths(now, -5), new Date(t0.getTime() + 60_000)]);
      for (let i = 0; i < 3; i++) await commitEvent(server.ctx, { merchantId: other.merchant_id, url: 'https://other.example/hook' });
    });
    after(async () => {
      await server?.close();
    });

    test('listing and reading notifications written by caja reads no month of events, and their attempts only from a day before the oldest', async () => {
      const sent: Sent[] = [];
      const q = noting(server.ctx.db, sent);
      const list = await listNotifications(q, { merchantId: other.merchant_id, limit: 50 });
      assert.equal(list.length, 3);
      assert.ok(await getNotification(q, list[0]!.id, other.merchant_id));
      const since = Math.min(...list.map((n) => new Date(n.created_at).getTime())) - DAY;
      let attemptReads = 0;
      for (const s of sent) {
        assert.deepEqual(await executedScans(server.ctx.db, 'events', s), [], `${s.sql} reads events`);
        const relations = await scanned(server.ctx.db, s);
        const months = monthsRead('notification_attempts', relations);
        if (months.length) attemptReads++;
        for (const m of months) if (m) assert.ok(addMonths(m, 1).getTime() > since, `${s.sql} reads ${partitionName('notification_attempts', m)}`);
      }
      assert.equal(attemptReads, 2);
      // What clients see: the event's type.
      const api = await V3Client.deposits(server.url, other).get('/v3/notifications');
      assert.equal(api.status, 200);
      assert.deepEqual(api.body.notifications.map((n: any) => n.event_type), ['deposit.status_changed', 'deposit.status_changed', 'deposit.status_changed']);
      const one = await V3Client.deposits(server.url, other).get(`/v3/notifications/${list[0]!.id}`);
      assert.equal(one.body.event_type, 'deposit.status_changed');
    });

    test('a notification written before migration 098 (event_type NULL) is shown with its event’s type, read from the event', async () => {
      const [newest, older] = await listNotifications(server.ctx.db, { merchantId: other.merchant_id, limit: 2 });
      await server.ctx.db.query('UPDATE notifications SET event_type = NULL WHERE id = $1', [older!.id]);
      const sent: Sent[] = [];
      const q = noting(server.ctx.db, sent);
      const list = await listNotifications(q, { merchantId: other.merchant_id, limit: 50 });
      assert.deepEqual(list.map((n) => n.event_type), ['deposit.status_changed', 'deposit.status_changed', 'deposit.status_changed']);
      const [listing] = sent;
      assert.equal((await executedScans(server.ctx.db, 'events', listing!)).length > 0, true, 'the pre-098 row is read from its event');
      sent.length = 0;
      assert.equal((await getNotification(q, older!.id, other.merchant_id))!.event_type, 'deposit.status_changed');
      assert.equal((await executedScans(server.ctx.db, 'events', sent[0]!)).length > 0, true);
      sent.length = 0;
      await getNotification(q, newest!.id, other.merchant_id);
      assert.deepEqual(await executedScans(server.ctx.db, 'events', sent[0]!), []);
      // What clients see (API, admin API, panel all read through the same statement).
      const api = await V3Client.deposits(server.url, other).get('/v3/notifications');
      assert.equal(api.status, 200);
      assert.deepEqual(api.body.notifications.map((n: any) => n.event_type), ['deposit.status_changed', 'deposit.status_changed', 'deposit.status_changed']);
      const one = await V3Client.deposits(server.url, other).get(`/v3/notifications/${older!.id}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.event_type, 'deposit.status_changed');
    });

    test('a retention batch reads and deletes attempts only from a day before its oldest notification, and archives every one', async () => {
      assert.deepEqual(await Promise.all(spanningAttempts.map((id) => partitionOf(server, id))), [
        partitionName('notification_attempts', addMonths(now, -3)),
        partitionName('notification_attempts', addMonths(now, -2)),
        partitionName('notification_attempts', new Date(now.getTime() - 3 * DAY)),
      ]);
      const sent: Sent[] = [];
      const r = await retentionBatch(notingContext(server.ctx, sent), 'notifications', 0);
      assert.deepEqual(r, { busy: false, archived: 4, lastId: backDated, done: true });

      const since = t0.getTime() - DAY;
      const reads = sent.filter((s) => /\bnotification_attempts\b/.test(s.sql));
      assert.ok(reads.length >= 2, reads.map((s) => s.sql).join('\n'));
      for (const s of reads) {
        const months = monthsRead('notification_attempts', await scanned(server.ctx.db, s));
        assert.ok(months.length > 0, s.sql);
        for (const m of months) if (m) assert.ok(addMonths(m, 1).getTime() > since, `${s.sql} reads ${partitionName('notification_attempts', m)}`);
      }

      const archived = await archivedRows(dir);
      assert.deepEqual(archived.notifications!.map((n) => n.id), [spanning]);
      assert.equal(archived.notifications![0]!.event_type, 'deposit.status_changed');
      assert.deepEqual(archived.notification_attempts!.map((a) => a.id), spanningAttempts);
      const left = await server.ctx.db.query('SELECT id FROM notification_attempts WHERE notification_id = $1', [spanning]);
      assert.deepEqual(left.rows, []);
      assert.deepEqual((await server.ctx.db.query('SELECT id FROM notifications WHERE id = $1', [spanning])).rows, []);
    });

    test('an attempt older than the rule allows (back-dated by hand) is archived and deleted with its notification all the same', async () => {
      await server.ctx.db.query(`UPDATE notifications SET status = 'delivered', finished_at = $2 WHERE id = $1`, [backDated, new Date(now.getTime() - 2 * DAY)]);
      const r = await retentionBatch(server.ctx, 'notifications', 0);
      assert.deepEqual(r, { busy: false, archived: 3, lastId: backDated, done: true });
      const archived = await archivedRows(dir);
      assert.deepEqual(archived.notifications!.map((n) => n.id), [spanning, backDated]);
      assert.deepEqual(archived.notification_attempts!.map((a) => a.id), [...spanningAttempts, ...backDatedAttempts]);
      assert.deepEqual((await server.ctx.db.query('SELECT id FROM notification_attempts WHERE notification_id = $1', [backDated])).rows, []);
      assert.deepEqual((await server.ctx.db.query('SELECT id FROM notifications WHERE id = $1', [backDated])).rows, []);
    });

    test('a notification archived before migration 098 (no event_type) is restored with its event’s type; without its event, a clear error', async () => {
      const [row] = (await archivedRows(dir)).notifications!;
      const { event_type: _, ...old } = row!;
      const file = (name: string, rows: unknown[]) => {
        const p = join(mkdtempSync(join(tmpdir(), 'caja-restore-')), name);
        writeFileSync(p, gzipSync(rows.map((r) => JSON.stringify(r)).join('\n') + '\n'));
        return p;
      };
      const id = Number(row!.id);
      assert.equal(await restoreArchiveFile(server.ctx.db, file(`notifications-${String(id).padStart(12, '0')}-${String(id).padStart(12, '0')}.ndjson.gz`, [old])), 1);
      const back = await V3Client.deposits(server.url, acme).get(`/v3/notifications/${id}`);
      assert.equal(back.status, 200);
      assert.equal(back.body.event_type, 'deposit.status_changed');
      const orphan = { ...old, id: id + 1_000_000, event_id: 999_999_999 };
      await assert.rejects(
        restoreArchiveFile(server.ctx.db, file(`notifications-${String(id + 1_000_000).padStart(12, '0')}-${String(id + 1_000_000).padStart(12, '0')}.ndjson.gz`, [orphan])),
        (err: unknown) => err instanceof ArchiveError && /restore the events' files first/.test(err.message),
      );
    });
  });
}
