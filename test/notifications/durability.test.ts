// Nothing is lost: a restart in the middle of a retry schedule, a process that dies holding a
// lease, and several workers (on PostgreSQL: several processes' connection pools) racing for the
// same rows, each attempt delivered once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config/config.ts';
import type { AppContext } from '../../src/config/context.ts';
import { openContext } from '../../src/server/runtime.ts';
import { createMerchant } from '../../src/merchants/merchants.ts';
import { NotificationWorker } from '../../src/notifications/worker.ts';
import { claimDue, finishAttempt } from '../../src/notifications/store.ts';
import { backends, postgresUrl, type Backend } from '../helpers/server.ts';
import { migratedPgliteDir } from '../helpers/data-dir.ts';
import { pgTemplate } from '../helpers/pg-template.ts';
import { addEvent, commitEvent, FAST_ENV, notificationIdOf, type Receiver, startReceiver, statusOf, waitFor } from './helpers.ts';

/** One store that several "processes" (contexts) can open, close and reopen. */
async function sharedStore(backend: Backend) {
  // The store starts migrated (test/helpers/data-dir.ts, pg-template.ts), as after a first run:
  // each context opened still runs migrate(), which finds nothing to do.
  const dataDir = mkdtempSync(join(tmpdir(), 'caja-notify-'));
  if (backend === 'pglite') cpSync(await migratedPgliteDir(), join(dataDir, 'pglite'), { recursive: true });
  let databaseUrl: string | undefined;
  let drop = async () => {};
  if (backend === 'pg') {
    const base = postgresUrl()!;
    const name = `caja_notify_${process.pid}_${randomBytes(4).toString('hex')}`;
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(`CREATE DATABASE ${name} TEMPLATE ${await pgTemplate(base)}`);
    await c.end();
    const u = new URL(base);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
    drop = async () => {
      const d = new pg.Client({ connectionString: base });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    };
  }
  const env = {
    CAJA_ENV: 'staging',
    DATA_DIR: dataDir,
    CAJA_MASTER_KEY: randomBytes(32).toString('base64'),
    CAJA_ADMIN_TOKEN: 'test-admin-token-0123456789',
    ...FAST_ENV,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  return {
    /** Opens a context as a new process would (migrations are idempotent). */
    open: (extra: Record<string, string> = {}) => openContext(loadConfig({ ...env, ...extra })),
    drop,
  };
}

const silent = { onError: () => {} };

for (const backend of backends()) {
  describe(`notification durability (${backend})`, () => {
    let receiver: Receiver;
    let store: Awaited<ReturnType<typeof sharedStore>>;
    // The process that survives the restart test; the later tests reuse it (opening an embedded
    // store is the slow part of these tests).
    let ctx: AppContext;

    before(async () => {
      receiver = await startReceiver();
      store = await sharedStore(backend);
    });
    after(async () => {
      await ctx?.db.close();
      await receiver?.close();
      await store?.drop();
    });

    test('a restart in the middle of a retry schedule carries on where it stopped', async () => {
      // Long enough between retries that the restart certainly happens inside the schedule.
      const first = await store.open({ CAJA_NOTIFY_RETRY_SECONDS: '0.5' });
      let healthy = false;
      let id: number;
      // Stopped and closed whatever happens: a worker left running would deliver the next tests' rows.
      let w1: NotificationWorker | undefined;
      try {
        const { merchant } = await createMerchant(first.db, first.box, first.config, { name: 'Restart' });
        receiver.respond = (r) => (r.path === '/restart' && !healthy ? { status: 500 } : { status: 200 });
        const e = await commitEvent(first, { merchantId: merchant.id, url: `${receiver.url}/restart` });
        id = await notificationIdOf(first, e.eventId);
        w1 = new NotificationWorker(first, silent);
        await waitFor('a failed attempt', () => receiver.received.some((r) => r.id === id));
      } finally {
        await w1?.stop();
        await first.db.close();
      }
      assert.equal(receiver.received.filter((r) => r.id === id).length, 1);

      healthy = true;
      const second = (ctx = await store.open());
      assert.equal(await statusOf(second, id), 'pending');
      const w2 = new NotificationWorker(second, silent);
      try {
        await waitFor('delivered after the restart', async () => (await statusOf(second, id)) === 'delivered');
      } finally {
        await w2.stop();
      }
      const { rows } = await second.db.query<{ attempt_no: number; status_code: number }>(
        'SELECT attempt_no, status_code FROM notification_attempts WHERE notification_id = $1 ORDER BY id', [id],
      );
      assert.deepEqual(rows.map((r) => [r.attempt_no, r.status_code]), [[1, 500], [2, 200]]);
    });

    test('a process killed mid-delivery loses nothing: the attempt is retried once its lease expires', async () => {
      {
        const { merchant } = await createMerchant(ctx.db, ctx.box, ctx.config, { name: 'Killed' });
        receiver.respond = () => ({ status: 200 });
        const e = await commitEvent(ctx, { merchantId: merchant.id, url: `${receiver.url}/killed` });
        const id = await notificationIdOf(ctx, e.eventId);
        // The "killed" process: it claimed the row (as a worker does right before the POST) and
        // never reported back.
        const claimed = await claimDue(ctx.db, {
          limit: 10, leaseSeconds: 1, token: 'killed-process', excludedOrigins: [], perOriginLimit: 10, inFlightByOrigin: {},
        });
        assert.ok(claimed.some((r) => r.id === id));
        const survivor = new NotificationWorker(ctx, silent);
        try {
          await waitFor('delivered by the survivor', async () => (await statusOf(ctx, id)) === 'delivered');
        } finally {
          await survivor.stop();
        }
        assert.equal(receiver.received.filter((r) => r.id === id).length, 1);
        const { rows } = await ctx.db.query<{ attempt_no: number; status_code: number | null; error: string | null }>(
          'SELECT attempt_no, status_code, error FROM notification_attempts WHERE notification_id = $1 ORDER BY id', [id],
        );
        assert.equal(rows.length, 2);
        assert.equal(rows[0].attempt_no, 1);
        assert.match(rows[0].error!, /no outcome/);
        assert.deepEqual([rows[1].attempt_no, rows[1].status_code], [2, 200]);
      }
    });

    test('a worker that lost its lease cannot overwrite the outcome of the one that took over', async () => {
      {
        const { merchant } = await createMerchant(ctx.db, ctx.box, ctx.config, { name: 'Lease' });
        const e = await commitEvent(ctx, { merchantId: merchant.id, url: 'http://127.0.0.1:9/never-called' });
        const id = await notificationIdOf(ctx, e.eventId);
        const opts = { limit: 10, leaseSeconds: 60, excludedOrigins: [], perOriginLimit: 10, inFlightByOrigin: {} };
        assert.ok((await claimDue(ctx.db, { ...opts, token: 'slow' })).some((r) => r.id === id));
        assert.ok(!(await claimDue(ctx.db, { ...opts, token: 'other' })).some((r) => r.id === id), 'a live lease is not claimed twice');
        await ctx.db.query(`UPDATE notifications SET lease_until = now() - interval '1 second' WHERE id = $1`, [id]);
        const retaken = await claimDue(ctx.db, { ...opts, token: 'new' });
        assert.ok(retaken.some((r) => r.id === id));
        const outcome = {
          id, attemptNo: 1, startedAt: new Date(), url: 'x', permanent: false, statusCode: 200, latencyMs: 1, error: null,
          excerpt: null, retryInSeconds: 1, maxAgeSeconds: 60,
        };
        assert.equal(await finishAttempt(ctx.db, { ...outcome, token: 'slow', ok: true }), null);
        assert.equal(await statusOf(ctx, id), 'pending');
        assert.equal(await finishAttempt(ctx.db, { ...outcome, token: 'new', ok: false, statusCode: 500, error: 'HTTP 500' }), 'pending');
        // Both attempts are on the log: the slow worker's request did go out.
        const { rows } = await ctx.db.query('SELECT 1 FROM notification_attempts WHERE notification_id = $1', [id]);
        assert.equal(rows.length, 2);
        await ctx.db.query(`UPDATE notifications SET status = 'failed' WHERE id = $1`, [id]);
      }
    });

    test('workers racing over the same rows deliver each notification once, in order per subject', async () => {
      // On PostgreSQL each worker has its own context (its own pool), as separate processes
      // would; PGlite is one connection, so there the workers share it. Leases are long here:
      // this is about claims never overlapping, not about leases running out.
      // (The receiver shares its event loop with the embedded database, which blocks it while it
      // works: on two loaded cores some answers took over 10 s; a generous timeout keeps slow
      // answers from turning into legitimate retries. The lease outlasts it.)
      const env = { CAJA_NOTIFY_CONCURRENCY: '8', CAJA_NOTIFY_PER_ORIGIN_CONCURRENCY: '8', CAJA_NOTIFY_LEASE_SECONDS: '60', CAJA_NOTIFY_TIMEOUT_MS: '30000' };
      const n = { ...ctx.config.notifications, concurrency: 8, perOriginConcurrency: 8, leaseSeconds: 60, timeoutMs: 30000 };
      const contexts: AppContext[] = [{ ...ctx, config: { ...ctx.config, notifications: n } }];
      if (backend === 'pg') contexts.push(await store.open(env), await store.open(env));
      const workers: NotificationWorker[] = [];
      try {
        const { merchant } = await createMerchant(ctx.db, ctx.box, ctx.config, { name: 'Race' });
        receiver.respond = () => ({ status: 200 });
        const subjects = Array.from({ length: 40 }, (_, i) => 880_000 + i);
        // 40 subjects x 5 changes, committed in batches like concurrent features would.
        await ctx.db.tx(async (q) => {
          for (let seq = 1; seq <= 5; seq++) {
            for (const s of subjects) {
              await addEvent(q, { merchantId: merchant.id, url: `${receiver.url}/race`, subjectId: s, body: JSON.stringify({ deposit_id: s, seq }) });
            }
          }
        });
        for (let i = 0; i < 3; i++) workers.push(new NotificationWorker(contexts[i % contexts.length], silent));
        // How long the 200 take depends on the machine (1 to 2 s alone; on two loaded cores each
        // answer can take a second, and every subject's five go one after another): what must not
        // happen is a stop, so the deadline is STALL_MS without a delivery, not a total. A failed
        // attempt ends the test at once, with its error: no notification may need a second one.
        // Separates slow answers (each bounded by the 30 s notification timeout, then a failed
        // attempt) from deliveries that stopped for good.
        const STALL_MS = 45_000;
        let delivered = 0;
        let progressAt = Date.now();
        await waitFor('all delivered', async () => {
          const { rows } = await ctx.db.query<{ delivered: number; failure: string | null }>(
            `SELECT count(*) FILTER (WHERE n.status = 'delivered')::int AS delivered,
                    (SELECT format('notification %s, attempt %s: %s', a.notification_id, a.attempt_no, coalesce(a.error, 'HTTP ' || a.status_code))
                       FROM notification_attempts a JOIN notifications f ON f.id = a.notification_id
                      WHERE f.url LIKE '%/race' AND a.status_code IS DISTINCT FROM 200 LIMIT 1) AS failure
             FROM notifications n WHERE n.url LIKE '%/race'`,
          );
          assert.equal(rows[0].failure, null, `every attempt succeeds; ${rows[0].failure}`);
          if (rows[0].delivered > delivered) [delivered, progressAt] = [rows[0].delivered, Date.now()];
          assert.ok(Date.now() - progressAt < STALL_MS, `${delivered} of 200 delivered, then none for ${STALL_MS / 1000} s`);
          return delivered === 200;
        }, Infinity);
        const race = receiver.received.filter((r) => r.path === '/race');
        assert.equal(new Set(race.map((r) => r.id)).size, 200);
        // Exactly one attempt each, and the receiver saw each exactly once.
        const { rows: attempts } = await ctx.db.query<{ n: number; ok: number }>(
          `SELECT count(*)::int AS n, count(*) FILTER (WHERE a.status_code = 200)::int AS ok
           FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id WHERE n.url LIKE '%/race'`,
        );
        assert.deepEqual(attempts[0], { n: 200, ok: 200 });
        assert.equal(race.length, 200);
        for (const s of subjects) {
          const seqs = race.map((r) => JSON.parse(r.body)).filter((b) => b.deposit_id === s).map((b) => b.seq);
          assert.deepEqual(seqs, [1, 2, 3, 4, 5], `order of subject ${s}`);
        }
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        for (const c of contexts.slice(1)) await c.db.close();
      }
    });
  });
}
