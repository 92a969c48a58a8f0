// Outcomes are written in batches, and a delivery's slot is freed as soon as its endpoint answers
// (before its outcome is committed): every attempt is still recorded exactly once, unwritten
// outcomes stay bounded when the database is slow, and a row whose outcome is not written yet
// stays leased, so another worker never sends it a second time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppContext } from '../../src/config/context.ts';
import { openDb, type Db } from '../../src/db/db.ts';
import { NotificationWorker } from '../../src/notifications/worker.ts';
import { CLAIM_SQL, claimParams } from '../../src/notifications/store.ts';
import { backends, postgresUrl, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import { addEvent, FAST_ENV, type Receiver, startReceiver, waitFor } from './helpers.ts';

const CONCURRENCY = 8;
const silent = { onError: () => {} };

/** The outcome statement (finishAttempts) is the one with jsonb_to_recordset. */
const isOutcomeWrite = (sql: string) => sql.includes('jsonb_to_recordset');

/** A context whose outcome writes go through `hook` first (to count, delay or hold them). */
function withOutcomeHook(ctx: AppContext, db: Db, hook: (rows: number) => Promise<void> | void): AppContext {
  const n = { ...ctx.config.notifications, concurrency: CONCURRENCY, perOriginConcurrency: CONCURRENCY, leaseSeconds: 30, timeoutMs: 10_000 };
  const hooked: Db = {
    ...db,
    async query(sql, params, opts) {
      if (isOutcomeWrite(sql)) await hook(JSON.parse(String(params![0])).length);
      return db.query(sql, params, opts);
    },
  };
  return { ...ctx, db: hooked, config: { ...ctx.config, notifications: n } };
}

for (const backend of backends()) {
  describe(`notification outcomes in batches (${backend})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let merchant: Credentials;

    before(async () => {
      receiver = await startReceiver();
      server = await startTestServer(backend, FAST_ENV);
      merchant = await createMerchant(server.url, 'Batches');
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    async function backlog(path: string, count: number): Promise<void> {
      await server.ctx.db.tx(async (q) => {
        for (let i = 0; i < count; i++) await addEvent(q, { merchantId: merchant.merchant_id, url: `${receiver.url}${path}` });
      });
    }

    async function attemptsPerNotification(path: string) {
      const { rows } = await server.ctx.db.query<{ notifications: number; delivered: number; attempts: number; ok: number; max_per: number }>(
        `SELECT count(*)::int AS notifications,
                count(*) FILTER (WHERE n.status = 'delivered')::int AS delivered,
                coalesce(sum(a.n), 0)::int AS attempts, coalesce(sum(a.ok), 0)::int AS ok, coalesce(max(a.n), 0)::int AS max_per
         FROM notifications n
         LEFT JOIN LATERAL (SELECT count(*) AS n, count(*) FILTER (WHERE status_code = 200) AS ok
                            FROM notification_attempts x WHERE x.notification_id = n.id) a ON true
         WHERE n.url = $1`,
        [`${receiver.url}${path}`],
      );
      return rows[0];
    }

    const received = (path: string) => receiver.received.filter((r) => r.path === path);

    test('many outcomes go in one statement, and every attempt is recorded once', async () => {
      receiver.respond = () => ({ status: 200 });
      await backlog('/batched', 120);
      const batches: number[] = [];
      // Each write takes a while, as a commit under load does: outcomes pile up behind it.
      const ctx = withOutcomeHook(server.ctx, server.ctx.db, async (rows) => {
        batches.push(rows);
        await new Promise((r) => setTimeout(r, 30));
      });
      const worker = new NotificationWorker(ctx, silent);
      try {
        await waitFor('all delivered', async () => (await attemptsPerNotification('/batched')).delivered === 120, 30_000);
      } finally {
        await worker.stop();
      }
      assert.deepEqual(await attemptsPerNotification('/batched'), { notifications: 120, delivered: 120, attempts: 120, ok: 120, max_per: 1 });
      assert.equal(batches.reduce((a, b) => a + b, 0), 120);
      assert.ok(batches.length < 60, `${batches.length} outcome statements for 120 deliveries: ${batches.join(',')}`);
      assert.ok(Math.max(...batches) > 1);
      assert.equal(received('/batched').length, 120);
      assert.equal(new Set(received('/batched').map((r) => r.id)).size, 120);
    });

    test('a slow outcome write does not hold the delivery slots; unwritten outcomes stay bounded', async () => {
      receiver.respond = () => ({ status: 200 });
      await backlog('/held', 5 * CONCURRENCY);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const worker = new NotificationWorker(withOutcomeHook(server.ctx, server.ctx.db, () => held), silent);
      try {
        // With the slot held until the outcome's commit, no more than CONCURRENCY would go out.
        await waitFor('more deliveries than slots while no outcome is written', () => received('/held').length > CONCURRENCY, 30_000);
        await new Promise((r) => setTimeout(r, 500));
        const sent = received('/held').length;
        assert.ok(sent < 2 * CONCURRENCY, `${sent} sent while outcomes were held (at most ${2 * CONCURRENCY - 1})`);
        release();
        await waitFor('all delivered', async () => (await attemptsPerNotification('/held')).delivered === 5 * CONCURRENCY, 30_000);
      } finally {
        release();
        await worker.stop();
      }
      const n = 5 * CONCURRENCY;
      assert.deepEqual(await attemptsPerNotification('/held'), { notifications: n, delivered: n, attempts: n, ok: n, max_per: 1 });
      assert.equal(received('/held').length, n);
    });

    test('two workers with slow outcome writes never send a row whose outcome is pending', async () => {
      receiver.respond = () => ({ status: 200 });
      await backlog('/two', 150);
      // On PostgreSQL each worker has its own pool, as two processes would; PGlite is one
      // connection, shared.
      const second = backend === 'pg' ? await openDb({ databaseUrl: server.ctx.config.databaseUrl }) : server.ctx.db;
      const slow = () => new Promise<void>((r) => setTimeout(r, 40));
      const workers = [
        new NotificationWorker(withOutcomeHook(server.ctx, server.ctx.db, slow), silent),
        new NotificationWorker(withOutcomeHook(server.ctx, second, slow), silent),
      ];
      try {
        await waitFor('all delivered', async () => (await attemptsPerNotification('/two')).delivered === 150, 30_000);
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        if (second !== server.ctx.db) await second.close();
      }
      assert.deepEqual(await attemptsPerNotification('/two'), { notifications: 150, delivered: 150, attempts: 150, ok: 150, max_per: 1 });
      assert.equal(received('/two').length, 150);
      assert.equal(new Set(received('/two').map((r) => r.id)).size, 150);
    });
  });
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Sort Key'?: string[];
  Plans?: PlanNode[];
}
const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

// PostgreSQL only: the plan is PostgreSQL's choice (PGlite is the same planner, but production
// backlogs live on PostgreSQL).
for (const backend of postgresUrl() ? (['pg'] as const) : []) {
  describe(`claiming from a large backlog (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(backend, FAST_ENV);
    });
    after(async () => {
      await server?.close();
    });

    test('the claim walks the due index in order and stops, rather than sorting every due row', async () => {
      const m = await createMerchant(server.url, 'Backlog plan');
      // Delivered rows and a due backlog, analysed: the statistics under which the planner used
      // to pick a bitmap scan of every due row and a sort (35-60 ms a claim at 10,000).
      await server.ctx.db.tx(async (q) => {
        for (let i = 0; i < 3000; i++) await addEvent(q, { merchantId: m.merchant_id, url: 'http://127.0.0.1:9/plan' });
      });
      await server.ctx.db.query(`UPDATE notifications SET status = 'delivered', finished_at = now() WHERE id IN (SELECT id FROM notifications ORDER BY id LIMIT 1500)`);
      // Analysed while the backlog was not yet due (retries waiting), then it comes due.
      await server.ctx.db.query(`UPDATE notifications SET next_attempt_at = 'infinity' WHERE status = 'pending'`);
      await server.ctx.db.query('ANALYZE notifications');
      await server.ctx.db.query(`UPDATE notifications SET next_attempt_at = now() WHERE status = 'pending'`);
      const params = claimParams({ limit: 32, leaseSeconds: 60, token: 'plan', excludedOrigins: [], perOriginLimit: 32, inFlightByOrigin: {} });
      const { rows } = await server.ctx.db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${CLAIM_SQL}`, params);
      const all = nodes(rows[0]['QUERY PLAN'][0].Plan);
      assert.ok(all.some((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === 'notifications_due_idx'), JSON.stringify(all.map((n) => n['Node Type'])));
      const sorts = all.filter((n) => n['Sort Key']?.some((k) => k.includes('next_attempt_at')));
      assert.deepEqual(sorts, [], 'no sort of the due rows');
    });
  });
}
