// Deposit creation benchmark: signed POST /v3/deposits per second against PostgreSQL with many
// concurrent clients (each request with its own invoice_id and X-Date), p50/p99 latency, errors
// and server memory. Two baselines run in the same process on the same database, so the ratios
// are what compares across machines:
//   bare        GET /health on the same server (same stack, one trivial query)
//   direct SQL  the rows a deposit creation writes (deposit, history row, event) inserted
//               directly with pg, at the same concurrency and pool size as the server
// Alone: `node --import tsx bench/deposits.ts` (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createScratchDatabase, postgresUrl } from '../test/helpers/databases.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
export const WARMUP = 3;
/** The server's pg pool size (src/db/db.ts); the direct-SQL baseline uses the same. */
const POOL = 20;
export const ADMIN_TOKEN = 'bench-admin-token-0123456789';

function baseUrl(): string {
  return postgresUrl() ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export function freshDatabase() {
  return createScratchDatabase(baseUrl(), 'caja_bench');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function startServer(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const child = spawn(process.execPath, [...extra, '--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      CAJA_ENV: 'staging',
      CAJA_ADMIN_TOKEN: ADMIN_TOKEN,
      CAJA_MASTER_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-bench-')),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, child };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('server did not start');
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };

export function summary(r: AutocannonResult) {
  return {
    rps: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    requests: r['2xx'] + r.non2xx,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

export async function runHttp(url: string, duration: number, requests?: Record<string, unknown>[]) {
  return autocannon({ url, connections: CONNECTIONS, duration, ...(requests ? { requests } : {}) });
}

/** Signed deposit creations; every request gets its own invoice_id, X-Date and signature. */
function depositRequests(login: string, secret: string, tag: string) {
  let n = 0;
  return [{
    method: 'POST',
    path: '/v3/deposits',
    setupRequest: (req: Record<string, unknown>) => {
      const body = JSON.stringify({
        country: 'MX', currency: 'MXN', amount: '250.00', payment_method: 'SE',
        invoice_id: `bench-${tag}-${++n}`, payer: { ...MX_PAYER, id: `user-${n % 5000}` },
      });
      const xDate = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const sig = createHmac('sha256', secret).update(xDate + login + body).digest('hex');
      return { ...req, body, headers: { 'content-type': 'application/json', 'x-date': xDate, 'x-login': login, authorization: `SVC ${sig}` } };
    },
  }];
}

/** The writes of one deposit creation, done directly: deposit + history row, event, in one transaction. */
async function directSql(databaseUrl: string, merchantId: number, seconds: number) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL });
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const end = Date.now() + seconds * 1000;
  const one = async () => {
    const i = ++n;
    const t0 = performance.now();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(
        `WITH d AS (
           INSERT INTO deposits (merchant_id, source, invoice_id, user_id, country, amount, currency, local_amount, local_currency,
             usd_amount, fee_local, surcharge_local, payer_amount, fee_usd, merchant_usd, fee_on_payer, surcharge_on_payer,
             payment_method, payment_type, checkout_type, token, status, payer, payer_document, payer_document_type, payer_name,
             payer_email, payment_info, expires_at, created_at, updated_at)
           VALUES ($1, 'v3', $2, $3, 'MX', 250.00, 'MXN', 250.00, 'MXN', 13.70, 3.75, 0, 250.00, 0.21, 13.49, false, true,
             'SE', 'BANK_TRANSFER', 'ONE_SHOT', $4, 'PENDING', $5, 'GODE561231GR8', 'RFC', 'Eva Gómez', 'eva@example.com', $6,
             now() + interval '1 day', now(), now())
           RETURNING id, created_at),
         h AS (INSERT INTO deposit_status_changes (deposit_id, from_status, to_status, cause, actor, created_at)
               SELECT id, NULL, 'PENDING', 'created', 'merchant', created_at FROM d)
         SELECT id FROM d`,
        [merchantId, `direct-${i}`, `user-${i % 5000}`, randomBytes(16).toString('base64url'), JSON.stringify(MX_PAYER), '{"type":"BANK_TRANSFER"}'],
      );
      await client.query(
        `INSERT INTO events (merchant_id, type, subject_type, subject_id, data) VALUES ($1, 'deposit.created', 'deposit', $2, $3)`,
        [merchantId, rows[0].id, JSON.stringify({ deposit_id: rows[0].id, status: 'PENDING' })],
      );
      await client.query('COMMIT');
      latencies.push(performance.now() - t0);
    } catch {
      errors++;
      await client.query('ROLLBACK').catch(() => {});
    } finally {
      client.release();
    }
  };
  const workers = Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < end) await one();
  });
  const t0 = Date.now();
  await Promise.all(workers);
  const elapsed = (Date.now() - t0) / 1000;
  await pool.end();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0);
  return { rps: Math.round(latencies.length / elapsed), p50_ms: pct(50), p99_ms: pct(99), requests: latencies.length, errors };
}

export async function benchDeposits(): Promise<Record<string, unknown>> {
  const db = await freshDatabase();
  const { url, child } = await startServer(db.url);
  try {
    const res = await fetch(`${url}/admin/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench' }),
    });
    const creds = (await res.json()) as { merchant_id: number; deposits: { login: string; secret_key: string } };

    // Warm up the JIT, the pool and the plan caches.
    await runHttp(url, WARMUP, depositRequests(creds.deposits.login, creds.deposits.secret_key, 'warm'));
    const bare = summary(await runHttp(`${url}/health`, DURATION));

    let peakRss = rssMb(child.pid!);
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, rssMb(child.pid!));
    }, 250);
    const deposits = summary(await runHttp(url, DURATION, depositRequests(creds.deposits.login, creds.deposits.secret_key, 'run')));
    clearInterval(sampler);

    const direct = await directSql(db.url, creds.merchant_id, DURATION);
    const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
    const result = {
      connections: CONNECTIONS,
      seconds: DURATION,
      deposit_create: { ...deposits, server_rss_mb: peakRss },
      bare_route_health: bare,
      direct_sql_writes: direct,
      ratios: {
        deposit_vs_direct_sql: ratio(deposits.rps, direct.rps),
        deposit_vs_bare_route: ratio(deposits.rps, bare.rps),
      },
    };
    console.log(`deposits: ${deposits.rps} req/s (p50 ${deposits.p50_ms} ms, p99 ${deposits.p99_ms} ms, ${deposits.errors} errors, server RSS ${peakRss} MB)`);
    console.log(`bare GET /health: ${bare.rps} req/s (p50 ${bare.p50_ms} ms, p99 ${bare.p99_ms} ms)`);
    console.log(`direct SQL writes: ${direct.rps} tx/s (p50 ${direct.p50_ms} ms, p99 ${direct.p99_ms} ms, ${direct.errors} errors)`);
    console.log(`ratios: deposits/direct SQL ${result.ratios.deposit_vs_direct_sql}, deposits/bare route ${result.ratios.deposit_vs_bare_route}`);
    return result;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await db.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await benchDeposits();
  console.log(JSON.stringify(r, null, 2));
  process.exit(0);
}
