// Notification delivery benchmark: N outbox rows on PostgreSQL, delivered by caja itself to a
// local receiver; notifications per second. Each worker runs as production runs it: `src/server/main.ts`
// started as its own process tree (CAJA_PROCESSES=1, then 2: the node:cluster supervisor forks two
// servers, each with its own pool and its own notification worker), so two workers are two
// processes with two event loops, not two loops sharing the bench's.
// The rows are written first and held back (next_attempt_at = infinity) while the servers start,
// then released in one statement; the clock runs from that commit until none is pending.
// Baseline in the same run: plain POSTs of the same bodies to the same receiver at the same total
// concurrency (32 for one worker, 64 for two; no database, no signing) from one process, so the
// ratio is what compares across machines. The receiver runs in a child process of its own and
// counts what it gets (POSTs, signed ones, distinct notification ids) to prove each notification
// arrived once and signed.
// Alone: `node --import tsx bench/notifications.ts` (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).
// BENCH_NOTIFICATIONS (default 10000) and BENCH_NOTIFY_CONCURRENCY (per process, default 32)
// adjust it; BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof-notify") is passed to the
// caja processes. Then the one-endpoint drain: BENCH_DRAIN_NOTIFICATIONS (default 10000) rows to
// one endpoint, delivered by one process with the default settings (per-endpoint concurrency 4,
// poll 500 ms), in seconds.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/config.ts';
import { openContext } from '../src/server/runtime.ts';
import { createMerchant } from '../src/merchants/merchants.ts';
import { recordEvent } from '../src/notifications/outbox.ts';
import type { AppContext } from '../src/config/context.ts';
import { createScratchDatabase, postgresUrl } from '../test/helpers/databases.ts';
import { serverEntry } from '../test/helpers/server-entry.ts';

const N = Number(process.env.BENCH_NOTIFICATIONS ?? 10000);
const CONCURRENCY = Number(process.env.BENCH_NOTIFY_CONCURRENCY ?? 32);
const DRAIN_N = Number(process.env.BENCH_DRAIN_NOTIFICATIONS ?? 10000);
// Which runs: BENCH_NOTIFY_RUNS=2 times only the two-process run (e.g. to profile it).
const RUNS = new Set((process.env.BENCH_NOTIFY_RUNS ?? '1,2,drain').split(','));
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function baseUrl(): string {
  return postgresUrl() ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

interface ReceiverStats {
  posts: number;
  signed: number;
  distinctIds: number;
}

/**
 * A receiver answering 200 to every POST; in its own process. GET /stats?path=/x answers how many
 * POSTs reached /x, how many carried Caja-Signature and how many distinct Caja-Notification-Id.
 */
async function startReceiver(): Promise<{ url: string; stats: (path: string) => Promise<ReceiverStats>; stop: () => void }> {
  const code = `
    const http = require('node:http');
    const byPath = new Map();
    const s = http.createServer((req, res) => {
      if (req.method === 'GET') {
        const p = new URL(req.url, 'http://x').searchParams.get('path');
        const st = byPath.get(p) || { posts: 0, signed: 0, ids: new Set() };
        res.writeHead(200, {'content-type': 'application/json'});
        return res.end(JSON.stringify({ posts: st.posts, signed: st.signed, distinctIds: st.ids.size }));
      }
      let st = byPath.get(req.url);
      if (!st) byPath.set(req.url, st = { posts: 0, signed: 0, ids: new Set() });
      st.posts++;
      if (/^t=\\d+,v1=[0-9a-f]{64}$/.test(req.headers['caja-signature'] || '')) st.signed++;
      if (req.headers['caja-notification-id']) st.ids.add(req.headers['caja-notification-id']);
      req.resume();
      req.on('end', () => { res.writeHead(200, {'content-type': 'text/plain'}); res.end('ok'); });
    });
    s.keepAliveTimeout = 30000;
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child: ChildProcess = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    stats: async (path) => (await (await fetch(`${url}/stats?path=${encodeURIComponent(path)}`)).json()) as ReceiverStats,
    stop: () => child.kill(),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * The compiled server (`dist/main.mjs`) with `processes` server processes (each with its
 * notification worker), as `npm start` runs it; resolves once every server logged "caja ready".
 */
async function startCaja(env: Record<string, string>, processes: number): Promise<{ stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...NODE_ARGS, serverEntry()], {
    cwd: ROOT,
    env: { ...process.env, ...env, CAJA_PROCESSES: String(processes), PORT: String(await freePort()), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let ready = 0;
    let buffered = '';
    child.once('exit', (code) => reject(new Error(`caja exited (${code}) before it was ready`)));
    child.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (line.includes('"caja ready')) ready++;
      if (ready === processes) resolve();
    });
  });
  child.stdout!.resume();
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function seed(ctx: AppContext, merchantId: number, url: string, prefix: number, count: number): Promise<string[]> {
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
  // Held back until the servers are up, so that their start is not timed.
  await ctx.db.query(`UPDATE notifications SET next_attempt_at = 'infinity' WHERE status = 'pending'`);
  // As autovacuum would have by now on a live system: without statistics on a table that
  // just grew from nothing, the planner sorts every due row instead of walking the index.
  await ctx.db.query('VACUUM ANALYZE notifications');
  return bodies;
}

/** Cheap enough to ask every 20 ms (a count(*) over the growing table cost the servers CPU). */
async function anyPending(ctx: AppContext): Promise<boolean> {
  const { rows } = await ctx.db.query(`SELECT 1 FROM notifications WHERE status = 'pending' LIMIT 1`);
  return rows.length > 0;
}

/** Starts caja with `processes` servers, releases the held rows, times until none is pending. */
async function deliverAll(ctx: AppContext, env: Record<string, string>, processes: number): Promise<number> {
  const caja = await startCaja(env, processes);
  try {
    await ctx.db.query(`UPDATE notifications SET next_attempt_at = now() WHERE status = 'pending'`);
    const t0 = performance.now();
    while (await anyPending(ctx)) await new Promise((r) => setTimeout(r, 20));
    return (performance.now() - t0) / 1000;
  } finally {
    await caja.stop();
  }
}

/** The same bodies POSTed plainly, `concurrency` at a time, over keep-alive connections. */
async function plainPosts(url: string, bodies: string[], concurrency: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  let next = 0;
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        { host: target.hostname, port: target.port, path: `/plain-${concurrency}`, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
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
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) await post(bodies[next++]);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return seconds;
}

export async function benchNotifications(): Promise<Record<string, unknown>> {
  const db = await createScratchDatabase(baseUrl(), 'caja_bench_notify');
  const receiver = await startReceiver();
  const env = {
    CAJA_ENV: 'staging',
    DATABASE_URL: db.url,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-bench-')),
    CAJA_MASTER_KEY: randomBytes(32).toString('base64'),
    CAJA_ADMIN_TOKEN: 'bench-admin-token-0123456789',
    LOG_LEVEL: 'info',
  };
  const fast = { ...env, CAJA_NOTIFY_CONCURRENCY: String(CONCURRENCY), CAJA_NOTIFY_PER_ORIGIN_CONCURRENCY: String(CONCURRENCY), CAJA_NOTIFY_POLL_MS: '50' };
  let ctx: AppContext | undefined;
  try {
    ctx = await openContext(loadConfig(env));
    const { merchant } = await createMerchant(ctx.db, ctx.box, ctx.config, { name: 'Bench' });

    let t0 = performance.now();
    const bodies = await seed(ctx, merchant.id, `${receiver.url}/one-worker`, 1_000_000, N);
    const seedSeconds = (performance.now() - t0) / 1000;
    const oneWorker = RUNS.has('1') ? await deliverAll(ctx, fast, 1) : NaN;
    if (!RUNS.has('1')) await ctx.db.query(`DELETE FROM notifications`);

    const twoWorkers = RUNS.has('2') ? (await seed(ctx, merchant.id, `${receiver.url}/two-workers`, 2_000_000, N), await deliverAll(ctx, fast, 2)) : NaN;

    // One merchant's backlog to one endpoint, with the default per-endpoint limits.
    const drain = RUNS.has('drain') ? (await seed(ctx, merchant.id, `${receiver.url}/one-endpoint`, 3_000_000, DRAIN_N), await deliverAll(ctx, env, 1)) : NaN;

    const baseline1 = await plainPosts(receiver.url, bodies, CONCURRENCY);
    const baseline2 = await plainPosts(receiver.url, bodies, 2 * CONCURRENCY);
    const { rows } = await ctx.db.query<{ n: number; ok: number; notifications: number; delivered: number; once: number }>(
      `SELECT (SELECT count(*)::int FROM notification_attempts) AS n,
              (SELECT count(*)::int FROM notification_attempts WHERE status_code = 200) AS ok,
              (SELECT count(*)::int FROM notifications) AS notifications,
              (SELECT count(*)::int FROM notifications WHERE status = 'delivered') AS delivered,
              (SELECT count(*)::int FROM notifications n WHERE (SELECT count(*) FROM notification_attempts a WHERE a.notification_id = n.id) = 1) AS once`,
    );
    const received = {
      one: await receiver.stats('/one-worker'),
      two: await receiver.stats('/two-workers'),
      drain: await receiver.stats('/one-endpoint'),
    };

    const rate = (count: number, s: number) => Math.round(count / s);
    const result = {
      notifications: N,
      concurrency_per_process: CONCURRENCY,
      outbox_writes_per_s: rate(N, seedSeconds),
      delivered_per_s_one_worker: rate(N, oneWorker),
      delivered_per_s_two_workers: rate(N, twoWorkers),
      baseline_plain_posts_per_s_concurrency_32: rate(N, baseline1),
      baseline_plain_posts_per_s_concurrency_64: rate(N, baseline2),
      ratio_one_worker_to_baseline: Number((baseline1 / oneWorker).toFixed(3)),
      ratio_two_workers_to_baseline: Number((baseline2 / twoWorkers).toFixed(3)),
      one_endpoint_backlog: DRAIN_N,
      one_endpoint_drain_seconds: Number(drain.toFixed(1)),
      one_endpoint_drain_per_s: rate(DRAIN_N, drain),
      attempts_recorded: rows[0].n,
      attempts_ok: rows[0].ok,
      notifications_delivered: `${rows[0].delivered} of ${rows[0].notifications}`,
      notifications_with_exactly_one_attempt: rows[0].once,
      received_posts_signed_distinct: [received.one, received.two, received.drain].map((r) => `${r.posts}/${r.signed}/${r.distinctIds}`).join(', '),
    };
    const b1 = result.baseline_plain_posts_per_s_concurrency_32;
    const b2 = result.baseline_plain_posts_per_s_concurrency_64;
    console.log(
      `notifications: ${N} rows per run, concurrency ${CONCURRENCY} per process, each worker in its own process (dist/main.mjs)\n` +
        `  outbox writes           ${result.outbox_writes_per_s}/s (recordEvent, 100 per transaction)\n` +
        `  delivered, 1 process    ${result.delivered_per_s_one_worker}/s: ${result.ratio_one_worker_to_baseline} x plain POSTs at ${CONCURRENCY} (${b1}/s)\n` +
        `  delivered, 2 processes  ${result.delivered_per_s_two_workers}/s: ${result.ratio_two_workers_to_baseline} x plain POSTs at ${2 * CONCURRENCY} (${b2}/s)\n` +
        `  one endpoint drain      ${DRAIN_N} in ${result.one_endpoint_drain_seconds} s, ${result.one_endpoint_drain_per_s}/s (1 process, default limits: 4 per endpoint)\n` +
        `  attempts recorded       ${result.attempts_recorded} (${result.attempts_ok} with 200); delivered ${result.notifications_delivered}, ${result.notifications_with_exactly_one_attempt} with exactly one attempt\n` +
        `  receiver (POSTs/signed/distinct ids)  ${result.received_posts_signed_distinct}`,
    );
    return result;
  } finally {
    await ctx?.db.close().catch(() => {});
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
