// Notification delivery benchmark: N outbox rows on PostgreSQL, delivered by the worker (claim
// under lease, sign, POST, record the attempt) to a local receiver; notifications per second.
// Baseline in the same run: plain POSTs of the same bodies to the same receiver at the same
// concurrency (no database, no signing), so the ratio is what compares across machines.
// The receiver runs in a child process so that it does not share the worker's event loop.
// Alone: `node --import tsx bench/notifications.ts` (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).
// BENCH_NOTIFICATIONS (default 2000) and BENCH_NOTIFY_CONCURRENCY (default 32) adjust it.
// Then the one-endpoint drain: BENCH_DRAIN_NOTIFICATIONS (default 10000) rows to one endpoint,
// delivered with the default settings (per-endpoint concurrency 4, poll 500 ms), in seconds.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { openContext } from '../src/runtime.ts';
import { createMerchant } from '../src/merchants/merchants.ts';
import { recordEvent } from '../src/notifications/outbox.ts';
import { NotificationWorker } from '../src/notifications/worker.ts';
import type { AppContext } from '../src/context.ts';
import { createScratchDatabase, postgresUrl } from '../test/helpers/databases.ts';

const N = Number(process.env.BENCH_NOTIFICATIONS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_NOTIFY_CONCURRENCY ?? 32);
const DRAIN_N = Number(process.env.BENCH_DRAIN_NOTIFICATIONS ?? 10000);

function baseUrl(): string {
  return postgresUrl() ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

function freshDatabase() {
  return createScratchDatabase(baseUrl(), 'caja_bench_notify');
}

/** A receiver answering 200 to every POST, counting them; in its own process. */
async function startReceiver(): Promise<{ url: string; stop: () => void }> {
  const code = `
    const http = require('node:http');
    const s = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, {'content-type': 'text/plain'}); res.end('ok'); }); });
    s.keepAliveTimeout = 30000;
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child: ChildProcess = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

async function seed(ctx: AppContext, merchantId: number, url: string, prefix: number, count = N): Promise<string[]> {
  const bodies: string[] = [];
  const batch = 100;
  for (let start = 0; start < count; start += batch) {
    await ctx.db.tx(async (q) => {
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const body = JSON.stringify({ deposit_id: prefix + i });
        bodies.push(body);
        await recordEvent(q, {
          merchantId,
          type: 'deposit.status_changed',
          subjectType: 'deposit',
          subjectId: prefix + i,
          data: { status: 'COMPLETED' },
          notifications: [{ kind: 'v3.deposit', url, contentType: 'application/json', body, signingSet: 'deposits' }],
        });
      }
    });
  }
  return bodies;
}

async function pending(ctx: AppContext): Promise<number> {
  const { rows } = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notifications WHERE status = 'pending'`);
  return rows[0].n;
}

/** Delivers everything pending with `workers` workers (each its own pool, as processes would). */
async function deliverAll(contexts: AppContext[]): Promise<number> {
  const t0 = performance.now();
  const workers = contexts.map((c) => new NotificationWorker(c));
  while ((await pending(contexts[0])) > 0) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(workers.map((w) => w.stop()));
  return seconds;
}

/** The same bodies POSTed plainly, CONCURRENCY at a time, over keep-alive connections. */
async function plainPosts(url: string, bodies: string[]): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const target = new URL(url);
  let next = 0;
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        { host: target.hostname, port: target.port, path: '/plain', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) await post(bodies[next++]);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return seconds;
}

export async function benchNotifications(): Promise<Record<string, unknown>> {
  const db = await freshDatabase();
  const receiver = await startReceiver();
  const env = {
    CAJA_ENV: 'staging',
    DATABASE_URL: db.url,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-bench-')),
    CAJA_MASTER_KEY: randomBytes(32).toString('base64'),
    CAJA_ADMIN_TOKEN: 'bench-admin-token-0123456789',
    CAJA_NOTIFY_CONCURRENCY: String(CONCURRENCY),
    CAJA_NOTIFY_PER_ORIGIN_CONCURRENCY: String(CONCURRENCY),
    CAJA_NOTIFY_POLL_MS: '50',
  };
  const contexts: AppContext[] = [];
  try {
    const ctx = await openContext(loadConfig(env));
    contexts.push(ctx);
    const { merchant } = await createMerchant(ctx.db, ctx.box, 'staging', { name: 'Bench' });

    let t0 = performance.now();
    const bodies = await seed(ctx, merchant.id, `${receiver.url}/notify`, 1_000_000);
    const seedSeconds = (performance.now() - t0) / 1000;
    // As autovacuum would have by now on a live system: without statistics on a table that
    // just grew from nothing, the planner sorts every due row instead of walking the index.
    await ctx.db.query('ANALYZE notifications');
    const oneWorker = await deliverAll([ctx]);

    // Two workers with their own pools on the same database, as two processes would run.
    contexts.push(await openContext(loadConfig(env)));
    await seed(ctx, merchant.id, `${receiver.url}/notify`, 2_000_000);
    const twoWorkers = await deliverAll(contexts);

    // One merchant's backlog to one endpoint, with the default per-endpoint limits.
    const drainEnv = { ...env, CAJA_NOTIFY_CONCURRENCY: '', CAJA_NOTIFY_PER_ORIGIN_CONCURRENCY: '', CAJA_NOTIFY_POLL_MS: '' };
    const drainCtx = await openContext(loadConfig(drainEnv));
    contexts.push(drainCtx);
    await seed(ctx, merchant.id, `${receiver.url}/one-endpoint`, 3_000_000, DRAIN_N);
    await ctx.db.query('ANALYZE notifications');
    const drain = await deliverAll([drainCtx]);

    const baseline = await plainPosts(receiver.url, bodies);
    const { rows } = await ctx.db.query<{ n: number; ok: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status_code = 200)::int AS ok FROM notification_attempts`,
    );

    const rate = (s: number) => Math.round(N / s);
    const result = {
      notifications: N,
      concurrency: CONCURRENCY,
      outbox_writes_per_s: rate(seedSeconds),
      delivered_per_s_one_worker: rate(oneWorker),
      delivered_per_s_two_workers: rate(twoWorkers),
      baseline_plain_posts_per_s: rate(baseline),
      ratio_one_worker_to_baseline: Number((baseline / oneWorker).toFixed(3)),
      ratio_two_workers_to_baseline: Number((baseline / twoWorkers).toFixed(3)),
      one_endpoint_backlog: DRAIN_N,
      one_endpoint_drain_seconds: Number(drain.toFixed(1)),
      one_endpoint_drain_per_s: Math.round(DRAIN_N / drain),
      attempts_recorded: rows[0].n,
      attempts_ok: rows[0].ok,
    };
    console.log(
      `notifications: ${N} rows, concurrency ${CONCURRENCY}\n` +
        `  outbox writes         ${result.outbox_writes_per_s}/s (recordEvent, 100 per transaction)\n` +
        `  delivered, 1 worker   ${result.delivered_per_s_one_worker}/s\n` +
        `  delivered, 2 workers  ${result.delivered_per_s_two_workers}/s\n` +
        `  baseline plain POSTs  ${result.baseline_plain_posts_per_s}/s\n` +
        `  ratio to baseline     ${result.ratio_one_worker_to_baseline} (1 worker), ${result.ratio_two_workers_to_baseline} (2 workers)\n` +
        `  one endpoint drain    ${DRAIN_N} in ${result.one_endpoint_drain_seconds} s, ${result.one_endpoint_drain_per_s}/s (default limits: 4 per endpoint)\n` +
        `  attempts recorded     ${result.attempts_recorded} (${result.attempts_ok} with 200)`,
    );
    return result;
  } finally {
    for (const c of contexts) await c.db.close().catch(() => {});
    receiver.stop();
    await db.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  benchNotifications().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
