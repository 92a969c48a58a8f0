// Deposit benchmark against PostgreSQL, every figure beside a baseline measured in the same run
// (the machine is shared and noisy, so only ratios compare across runs):
//   POST /v3/deposits HOSTED (also with X-Idempotency-Key, against HOSTED without) and BR Pix
//   ONE_SHOT (with its QR), signed, each request with its own
//     invoice_id, X-Date and signature   vs  pgbench running the same writes (a script of the real
//     INSERTs rebuilt from rows the service wrote in this run: deposit, history row, event; and
//     for Pix the nextval round trip before them) with as many
//     connections as the server's pools, run right after the phase it is the baseline of
//   GET /v3/deposits/{id}, signed        vs  GET /health on the same server
//   p50/p99 of HOSTED creation at 70 % of the peak rate measured just before, evenly paced
//   (bench/paced.ts), RSS per process
//   after the run; all of it with 1 process and with CAJA_PROCESSES=N (BENCH_PROCESSES, default
//   the number of cores)
//   the same HTTP figures on the embedded default (PGlite), against its own GET /health
//   (BENCH_EMBEDDED=0 leaves it out).
// The database sits on the same 2-core machine as the server and the load generator, so pgbench
// has the cores to itself while the service shares them with autocannon: a ratio of 1 is out of
// reach by construction; the issue's targets are set with that in mind.
// Alone: `node --import tsx bench/deposits.ts` (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createScratchDatabase, postgresUrl } from '../test/helpers/databases.ts';
import { serverEntry } from '../test/helpers/server-entry.ts';
import { paced, type PacedRequest, percentiles } from './paced.ts';
import { onRecycledWal, type WalUse } from './wal.ts';
import { type CpuSplit, type PgbenchCpu, withCpuSplit, withPgbenchCpu } from './cpu-split.ts';

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
/** The server's pg pool size per process (src/db/db.ts); pgbench gets as many connections in all. */
const POOL = 20;
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? availableParallelism());
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

/**
 * Starts the compiled server (`dist/main.mjs`, what `npm start` runs) on a free port. `env` adds
 * variables (CAJA_PROCESSES, or the master key when a second server must read the credentials a
 * first one created). BENCH_NODE_ARGS passes node flags (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
/**
 * `waitSeconds`: how long it may take to answer `/health` (it runs pending migrations first);
 * `entry`: another build's main.mjs (bench/pix-profile.ts --against compares two builds).
 */
export async function startServer(databaseUrl: string, env: Record<string, string> = {}, opts: { waitSeconds?: number; entry?: string } = {}): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const child = spawn(process.execPath, [...extra, opts.entry ?? serverEntry()], {
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
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < (opts.waitSeconds ?? 30) * 10; i++) {
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

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** The server's processes: the primary and, with CAJA_PROCESSES > 1, its forked workers. */
export function serverPids(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return [pid, ...children];
  } catch {
    return [pid];
  }
}

const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };
const BR_PAYER = { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };

export function summary(r: AutocannonResult) {
  return {
    rps: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    requests: r['2xx'] + r.non2xx,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

export async function runHttp(url: string, duration: number, requests?: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  return autocannon({ url, connections: CONNECTIONS, duration, ...(requests ? { requests } : {}), ...extra });
}

export function v3Headers(login: string, secret: string, body: string): Record<string, string> {
  const xDate = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const sig = createHmac('sha256', secret).update(xDate + login + body).digest('hex');
  return { 'x-date': xDate, 'x-login': login, authorization: `SVC ${sig}` };
}

type Kind = 'hosted' | 'pix';

/**
 * What a phase creates. HOSTED: no payment method, the customer picks one on the hosted page.
 * Pix: a method and a complete payer make it ONE_SHOT, answered with the BR Code and its QR image.
 * Limited: HOSTED in Colombia, where the bench's merchant has a daily customer limit, for 5,000
 * customers by user id (no document: the other phases' payers share one, which would make them
 * all one customer, checked one after another by design).
 */
type Phase = Kind | 'limited';

function depositBody(phase: Phase, tag: string, i: number): Record<string, unknown> {
  const invoice_id = `bench-${phase}-${tag}-${i}`;
  const id = `user-${i % 5000}`;
  switch (phase) {
    case 'hosted':
      return { country: 'MX', currency: 'MXN', amount: '250.00', invoice_id, payer: { ...MX_PAYER, id } };
    case 'pix':
      return { country: 'BR', currency: 'BRL', amount: '10.50', payment_method: 'IX', invoice_id, payer: { ...BR_PAYER, id } };
    case 'limited':
      return { country: 'CO', currency: 'USD', amount: '25.00', invoice_id, payer: { first_name: 'Ana', last_name: 'Rojas', email: 'ana@example.com', id } };
  }
}

/**
 * Signed deposit creations; every request gets its own invoice_id, X-Date and signature (and with
 * `keyed`, its own X-Idempotency-Key, as an integration that retries safely sends).
 */
function depositRequest(login: string, secret: string, phase: Phase, tag: string, keyed = false): () => PacedRequest {
  let n = 0;
  return () => {
    const i = ++n;
    const body = JSON.stringify(depositBody(phase, tag, i));
    const key: Record<string, string> = keyed ? { 'x-idempotency-key': `bench-key-${tag}-${i}` } : {};
    return { method: 'POST', path: '/v3/deposits', body, headers: { 'content-type': 'application/json', ...v3Headers(login, secret, body), ...key } };
  };
}

export function depositRequests(login: string, secret: string, phase: Phase, tag: string, keyed = false) {
  const next = depositRequest(login, secret, phase, tag, keyed);
  return [{ method: 'POST', path: '/v3/deposits', setupRequest: (req: Record<string, unknown>) => ({ ...req, ...next() }) }];
}

/** Signed status reads, round-robin over existing deposit ids. */
function statusRequests(login: string, secret: string, ids: number[]) {
  let n = 0;
  return [{
    method: 'GET',
    setupRequest: (req: Record<string, unknown>) => ({ ...req, path: `/v3/deposits/${ids[n++ % ids.length]}`, headers: v3Headers(login, secret, '') }),
  }];
}

/**
 * A SQL string literal pgbench leaves alone: pgbench reads `:name` as a variable even inside
 * quotes, so colons (times, URLs, JSON) are written as \x3a in an escape string.
 */
function literal(v: string | null): string {
  if (v === null) return 'NULL';
  return `E'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/:/g, '\\x3a')}'`;
}

/**
 * The writes of one deposit creation as a pgbench script, rebuilt from a deposit the service
 * wrote in this run (every column as it stored it, so payment_info carries the same QR image),
 * its history row and its event, in one statement as the service sends it (a creation claims no
 * signed request since issue 25); invoice_id and token vary per transaction. Pix first takes the id from the sequence in a round trip of its own, as
 * the service does before building the payment info.
 */
export async function pgbenchScript(databaseUrl: string, depositId: number, kind: Kind): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const cols = (await client.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
       WHERE table_name = 'deposits' AND table_schema = current_schema() AND is_generated = 'NEVER' AND column_name <> 'id'
       ORDER BY ordinal_position`,
    )).rows.map((r) => r.column_name);
    const row = (await client.query(`SELECT ${cols.map((c) => `${c}::text AS ${c}`).join(', ')} FROM deposits WHERE id = $1`, [depositId])).rows[0];
    const ev = (await client.query(`SELECT data::text AS data FROM events WHERE subject_type = 'deposit' AND subject_id = $1 AND type = 'deposit.created'`, [depositId])).rows[0];
    const values = cols.map((c) => (c === 'invoice_id' || c === 'token' ? `'pgb-' || :client_id || '-' || :n` : literal(row[c])));
    const id = kind === 'pix' ? ':id' : `nextval(pg_get_serial_sequence('deposits', 'id'))::integer`;
    return `\\set n random(1, 1000000000000)
${kind === 'pix' ? `SELECT nextval(pg_get_serial_sequence('deposits', 'id'))::integer AS id \\gset\n` : ''}WITH d AS (
  INSERT INTO deposits (id, ${cols.join(', ')})
  VALUES (${id}, ${values.join(', ')})
  ON CONFLICT (merchant_id, invoice_id) DO NOTHING RETURNING *
), h AS (
  INSERT INTO deposit_status_changes (deposit_id, from_status, to_status, cause, actor, created_at)
  SELECT id, NULL, 'PENDING', 'created', 'merchant', created_at FROM d
), e AS (
  INSERT INTO events (merchant_id, type, subject_type, subject_id, data)
  SELECT merchant_id, 'deposit.created', 'deposit', id, ${literal(ev.data)}::jsonb FROM d
)
SELECT * FROM d;
`;
  } finally {
    await client.end();
  }
}

interface PgbenchResult {
  tps: number;
  transactions: number;
  latency_avg_ms: number;
  failed: number;
  connections: number;
  /** With a rate: the rate and the latency percentiles. */
  rate_per_s?: number;
  p50_ms?: number;
  p99_ms?: number;
  max_ms?: number;
}

/**
 * pgbench running `script`. With `rate`, transactions are scheduled evenly at that rate (`-R`)
 * and each one's latency, logged from its scheduled start as bench/paced.ts counts ours, gives
 * p50/p99/max: what the database alone shows for the same writes at the same rate.
 */
export function pgbench(databaseUrl: string, script: string, connections: number, seconds: number, rate?: number): PgbenchResult {
  const dir = mkdtempSync(join(tmpdir(), 'caja-pgbench-'));
  const file = join(dir, 'deposit.sql');
  writeFileSync(file, script);
  const paced = rate ? ['-R', String(rate), '-l', '--log-prefix', join(dir, 'latency')] : [];
  const r = spawnSync('pgbench', ['-n', '-M', 'prepared', '-c', String(connections), '-j', '2', '-T', String(seconds), ...paced, '-f', file, databaseUrl], { encoding: 'utf8', cwd: dir });
  const tps = /tps = ([\d.]+)/.exec(r.stdout);
  const latency = /latency average = ([\d.]+) ms/.exec(r.stdout);
  const failed = /number of failed transactions: (\d+)/.exec(r.stdout);
  const transactions = /number of transactions actually processed: (\d+)/.exec(r.stdout);
  if (!tps) throw new Error(`pgbench failed: ${r.stderr || r.stdout}`);
  const result = { tps: Math.round(Number(tps[1])), transactions: Number(transactions?.[1] ?? 0), latency_avg_ms: Number(latency?.[1] ?? 0), failed: Number(failed?.[1] ?? 0), connections };
  return rate ? { ...result, rate_per_s: rate, ...percentiles(loggedLatencies(dir)) } : result;
}

/** Per-transaction latencies (ms) from pgbench's logs: the third field is the latency in µs. */
function loggedLatencies(dir: string): number[] {
  const out: number[] = [];
  for (const f of readdirSync(dir).filter((f) => f.startsWith('latency'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      const fields = line.split(' ');
      if (fields.length > 2) out.push(Number(fields[2]) / 1000);
    }
  }
  return out;
}

const walCreated = (w: WalUse) => ('skipped' in w ? 'not known' : w.segments_created);

const cpuLine = (c: CpuSplit | PgbenchCpu | { skipped: string }) =>
  'skipped' in c ? `not known (${c.skipped})` : `${Object.values(c).join(', ')} µs`;
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);

interface Creds { merchant_id: number; deposits: { login: string; secret_key: string } }

/**
 * pgbench running the writes of the creations just measured (a script rebuilt from the newest
 * deposit of `kind`), with as many connections as the server's pools, right after them while the
 * server idles: the machine's speed drifts over minutes (other tenants of the host), and a
 * baseline taken minutes later, once the servers had stopped, moved the ratios by a third from
 * one run to the next.
 */
async function pgbenchAfter(databaseUrl: string, merchantId: number, kind: Kind, processes: number, rate?: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ id: number }>(
    kind === 'hosted'
      ? `SELECT max(id) AS id FROM deposits WHERE merchant_id = $1 AND checkout_type = 'HOSTED'`
      : `SELECT max(id) AS id FROM deposits WHERE merchant_id = $1 AND payment_method = 'IX'`,
    [merchantId],
  );
  await client.end();
  const script = await pgbenchScript(databaseUrl, Number(rows[0]!.id), kind);
  return withPgbenchCpu(() => pgbench(databaseUrl, script, POOL * processes, DURATION, rate));
}

/** One server (of `processes` processes) through every HTTP measurement. */
async function measureServer(databaseUrl: string, processes: number, masterKey: string, creds: Creds | null) {
  const { url, child } = await startServer(databaseUrl, { CAJA_PROCESSES: String(processes), CAJA_MASTER_KEY: masterKey });
  try {
    if (!creds) {
      const res = await fetch(`${url}/admin/merchants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bench' }),
      });
      creds = (await res.json()) as Creds;
    }
    const { login, secret_key: secret } = creds.deposits;
    const merchantId = creds.merchant_id;
    const tag = `p${processes}`;
    // Warm up the JIT, the pools and the plan caches (every process: autocannon's connections spread over them).
    await runHttp(url, WARMUP, depositRequests(login, secret, 'hosted', `${tag}-warm`));
    await runHttp(url, WARMUP, depositRequests(login, secret, 'pix', `${tag}-warm`));

    const health = summary(await runHttp(`${url}/health`, DURATION));
    const pids = () => serverPids(child.pid!);
    const hosted = await withCpuSplit(pids, async () => summary(await runHttp(url, DURATION, depositRequests(login, secret, 'hosted', tag))));
    // Latency below saturation: 70 % of the peak just measured (right after it: the machine's
    // speed drifts over minutes, and 70 % of an earlier, faster minute's peak can be all of this
    // one's), evenly paced (bench/paced.ts), and 35 %, to show how it grows with load.
    // Each starts on recycled WAL segments (bench/wal.ts), as a server under steady load writes.
    const pacedAt = (share: number, name: string) =>
      onRecycledWal(databaseUrl, () => paced(url, Math.max(1, Math.round(hosted.rps * share)), DURATION, depositRequest(login, secret, 'hosted', `${tag}-${name}`), CONNECTIONS));
    const at70 = await pacedAt(0.7, '70');
    // The same writes by pgbench at the same rate: the tail the machine and the database give
    // without us (its p99 moves from 4 to 17 ms from one minute to the next on these machines).
    const writesAt70 = await onRecycledWal(databaseUrl, () => pgbenchAfter(databaseUrl, merchantId, 'hosted', processes, at70.result.rate_per_s));
    const at35 = await pacedAt(0.35, '35');
    const hostedWrites = await pgbenchAfter(databaseUrl, merchantId, 'hosted', processes);
    const keyed = summary(await runHttp(url, DURATION, depositRequests(login, secret, 'hosted', `${tag}-keyed`, true)));
    const pix = await withCpuSplit(pids, async () => summary(await runHttp(url, DURATION, depositRequests(login, secret, 'pix', tag))));
    const pixWrites = await pgbenchAfter(databaseUrl, merchantId, 'pix', processes);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const ids = (await client.query<{ id: number }>(`SELECT id FROM deposits WHERE merchant_id = $1 ORDER BY id DESC LIMIT 5000`, [merchantId])).rows.map((r) => Number(r.id));
    await client.end();
    const status = summary(await runHttp(url, DURATION, statusRequests(login, secret, ids)));
    // Under a daily customer limit (in its own country, so that no other phase is limited): each
    // batch locks its customers and reads their usage before writing.
    const rule = await fetch(`${url}/admin/limits`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ merchant_id: merchantId, country: 'CO', daily: '1000000000' }),
    });
    if (!rule.ok) throw new Error(`limit rule: ${rule.status} ${await rule.text()}`);
    const limited = summary(await runHttp(url, DURATION, depositRequests(login, secret, 'limited', tag)));
    const rss = serverPids(child.pid!).map(rssMb);
    return {
      creds,
      result: {
        processes,
        health,
        deposit_hosted: hosted,
        deposit_hosted_idempotency_key: keyed,
        deposit_hosted_daily_customer_limit: limited,
        deposit_pix_one_shot: pix,
        get_deposit: status,
        hosted_at_70_percent: { ...at70.result, wal: at70.wal },
        hosted_at_35_percent: { ...at35.result, wal: at35.wal },
        rss_mb_per_process_after: rss.length > 1 ? rss.slice(1) : rss,
        rss_mb_primary: rss.length > 1 ? rss[0] : undefined,
        pgbench: { connections: POOL * processes, hosted_writes: hostedWrites, pix_writes: pixWrites, hosted_writes_at_70_percent: { ...writesAt70.result, wal: writesAt70.wal } },
        ratios: {
          hosted_vs_pgbench: ratio(hosted.rps, hostedWrites.tps),
          pix_vs_pgbench: ratio(pix.rps, pixWrites.tps),
          pix_vs_hosted: ratio(pix.rps, hosted.rps),
          keyed_vs_hosted: ratio(keyed.rps, hosted.rps),
          limited_vs_hosted: ratio(limited.rps, hosted.rps),
          get_deposit_vs_health: ratio(status.rps, health.rps),
          p99_at_70_percent_vs_pgbench: ratio(at70.result.p99_ms, writesAt70.result.p99_ms ?? 0),
        },
      },
    };
  } finally {
    await stopServer(child);
  }
}

/**
 * The embedded default (PGlite, one process, no DATABASE_URL): what `npm start` gives on a laptop.
 * There is no pgbench for it; GET /health on the same server is the baseline.
 */
async function measureEmbedded() {
  const { url, child } = await startServer('', { DATABASE_URL: '' });
  try {
    const res = await fetch(`${url}/admin/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench' }),
    });
    const { login, secret_key: secret } = ((await res.json()) as Creds).deposits;
    await runHttp(url, WARMUP, depositRequests(login, secret, 'hosted', 'lite-warm'));
    const health = summary(await runHttp(`${url}/health`, DURATION));
    const hosted = summary(await runHttp(url, DURATION, depositRequests(login, secret, 'hosted', 'lite')));
    const pix = summary(await runHttp(url, DURATION, depositRequests(login, secret, 'pix', 'lite')));
    // A fresh embedded database numbers this merchant's deposits from 1.
    const ids = Array.from({ length: Math.min(5000, hosted.requests) }, (_, i) => i + 1);
    const status = summary(await runHttp(url, DURATION, statusRequests(login, secret, ids)));
    const result = {
      health, deposit_hosted: hosted, deposit_pix_one_shot: pix, get_deposit: status, rss_mb_after: rssMb(child.pid!),
      ratios: { pix_vs_hosted: ratio(pix.rps, hosted.rps), get_deposit_vs_health: ratio(status.rps, health.rps) },
    };
    console.log(`embedded PGlite: HOSTED ${hosted.rps}/s (p50 ${hosted.p50_ms} ms, p99 ${hosted.p99_ms} ms, ${hosted.errors} errors), Pix ONE_SHOT ${pix.rps}/s (${pix.errors} errors), `
      + `GET /v3/deposits/{id} ${status.rps}/s (${status.errors} errors), GET /health ${health.rps}/s; RSS ${result.rss_mb_after} MB`);
    return result;
  } finally {
    await stopServer(child);
  }
}

export async function benchDeposits(): Promise<Record<string, unknown>> {
  const db = await freshDatabase();
  const masterKey = randomBytes(32).toString('base64');
  try {
    const counts = PROCESSES > 1 ? [1, PROCESSES] : [1];
    let creds: Creds | null = null;
    const runs: Record<string, unknown>[] = [];
    for (const p of counts) {
      const m = await measureServer(db.url, p, masterKey, creds);
      creds = m.creds;
      const r = m.result;
      console.log(`${p} process(es): HOSTED ${r.deposit_hosted.rps}/s (p50 ${r.deposit_hosted.p50_ms} ms, p99 ${r.deposit_hosted.p99_ms} ms, ${r.deposit_hosted.errors} errors), `
        + `HOSTED with X-Idempotency-Key ${r.deposit_hosted_idempotency_key.rps}/s (${r.deposit_hosted_idempotency_key.errors} errors), `
        + `HOSTED under a daily customer limit ${r.deposit_hosted_daily_customer_limit.rps}/s (${r.deposit_hosted_daily_customer_limit.errors} errors), `
        + `Pix ONE_SHOT ${r.deposit_pix_one_shot.rps}/s (${r.deposit_pix_one_shot.errors} errors), GET /v3/deposits/{id} ${r.get_deposit.rps}/s (${r.get_deposit.errors} errors), GET /health ${r.health.rps}/s; `
        + `HOSTED at ${r.hosted_at_70_percent.rate_per_s}/s: p50 ${r.hosted_at_70_percent.p50_ms} ms, p99 ${r.hosted_at_70_percent.p99_ms} ms `
        + `(pgbench, same writes and rate: p50 ${r.pgbench.hosted_writes_at_70_percent.p50_ms} ms, p99 ${r.pgbench.hosted_writes_at_70_percent.p99_ms} ms; WAL segments created during them: ${walCreated(r.hosted_at_70_percent.wal)}, ${walCreated(r.pgbench.hosted_writes_at_70_percent.wal)}); `
        + `at ${r.hosted_at_35_percent.rate_per_s}/s: p50 ${r.hosted_at_35_percent.p50_ms} ms, p99 ${r.hosted_at_35_percent.p99_ms} ms; RSS ${r.rss_mb_per_process_after.join(', ')} MB`);
      console.log(`${p} process(es), CPU per creation at peak (server, PostgreSQL, load generator): HOSTED ${cpuLine(r.deposit_hosted.cpu)}; Pix ${cpuLine(r.deposit_pix_one_shot.cpu)}; `
        + `pgbench's same writes (PostgreSQL, pgbench): HOSTED ${cpuLine(r.pgbench.hosted_writes.cpu)}; Pix ${cpuLine(r.pgbench.pix_writes.cpu)}`);
      console.log(`${p} process(es) vs pgbench with ${r.pgbench.connections} connections, each right after its phase (HOSTED writes ${r.pgbench.hosted_writes.tps} tx/s, Pix writes ${r.pgbench.pix_writes.tps} tx/s): `
        + `HOSTED ${r.ratios.hosted_vs_pgbench}, Pix ${r.ratios.pix_vs_pgbench}, Pix/HOSTED ${r.ratios.pix_vs_hosted}, keyed/HOSTED ${r.ratios.keyed_vs_hosted}, under a daily customer limit/HOSTED ${r.ratios.limited_vs_hosted}, GET deposit/health ${r.ratios.get_deposit_vs_health}`);
      runs.push(r);
    }
    const embedded = process.env.BENCH_EMBEDDED === '0' ? undefined : await measureEmbedded();
    return { http_connections: CONNECTIONS, seconds: DURATION, pool_per_process: POOL, runs, embedded_pglite: embedded };
  } finally {
    await db.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await benchDeposits();
  console.log(JSON.stringify(r, null, 2));
  process.exit(0);
}
