// `npm run bench -- hot`: completions per second against creations, in the same run. Every
// deposit completion of every merchant credits the merchant's `available` and `fees` accounts
// and debits caja's `settlement` account of the currency. Until migration 034 each entry updated
// its account's row, so completions queued on those rows (caja's one `settlement` for every
// merchant); now a credit appends a balance delta and locks nothing (docs/balance.md, Hot
// accounts). Each completion phase also reports where the database's time went (bench/waits.ts):
// the share of active backends waiting on a lock, the top wait events, the account rows queued on;
// and per completion the CPU, the commits and the WAL written (the cluster's: quiet runs only).
//
//   creations: signed BR Pix deposits of one merchant (the rate completions are compared with)
//   completions, one merchant: POST /v3/sandbox/deposits/{id}/approve over its pending deposits
//   completions, 20 merchants: the same, round-robin over 20 merchants
//   completions at 70 % of each peak (1 merchant, 20 merchants), evenly paced: p50 and p99
//   before them, a warm-up of creations and completions and an ANALYZE (see warmUp)
// Pending deposits to complete are copies of one the API created (as the scale bench grows).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';
import { admin, type Credentials, hmac } from '../test/helpers/clients.ts';
import { createScratchDatabase, postgresUrl } from '../test/helpers/databases.ts';
import { cpf } from '../test/helpers/documents.ts';
import type { Queryable } from '../src/db/db.ts';
import { foldAllDayFigures } from '../src/panel/services/stats.ts';
import { ADMIN_TOKEN, serverPids, startServer, stopServer } from './deposits.ts';
import { withCpuSplit } from './cpu-split.ts';
import { paced } from './paced.ts';
import { sampleWaits, type WaitProfile } from './waits.ts';

type Autocannon = (opts: Record<string, unknown>) => Promise<{ requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const MERCHANTS = 20;
const PAYER = { document: cpf('529982247'), first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };

function signed(c: Credentials, body: string): Record<string, string> {
  const xDate = new Date().toISOString();
  return { 'x-date': xDate, 'x-login': c.deposits.login, authorization: `SVC ${hmac(c.deposits.secret_key, xDate + c.deposits.login + body)}` };
}

/** `n` pending copies of deposit `template` for each merchant; their ids per merchant. */
async function seedPending(c: pg.Client, template: number, merchants: Credentials[], n: number): Promise<Map<number, number[]>> {
  const cols = (await c.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_name = 'deposits' AND table_schema = current_schema()
       AND is_generated = 'NEVER' AND column_name <> 'id' ORDER BY ordinal_position`,
  )).rows.map((r) => r.column_name);
  const tag = randomBytes(4).toString('hex');
  const out = new Map<number, number[]>();
  for (const m of merchants) {
    const expr = cols.map((col) => {
      switch (col) {
        case 'merchant_id': return '$2::int';
        case 'invoice_id': return `'hot-' || $3::text || '-' || g`;
        case 'token': return `md5('hot' || $3::text || $2::text || g) || md5(g::text || $3::text)`;
        case 'connector_reference': return `CASE WHEN connector_reference IS NULL THEN NULL ELSE connector_reference || '-' || $3::text || '-' || $2::text || '-' || g END`;
        case 'expires_at': return `now() + interval '1 hour'`;
        default: return col;
      }
    });
    const { rows } = await c.query<{ id: number }>(
      `INSERT INTO deposits (${cols.join(', ')}) SELECT ${expr.join(', ')} FROM deposits d, generate_series(1, $4) g WHERE d.id = $1 RETURNING id`,
      [template, m.merchant_id, tag, n],
    );
    out.set(m.merchant_id, rows.map((r) => r.id));
  }
  return out;
}

/**
 * The cluster's WAL flushed so far, as an LSN (for pg_walinspect, which reads flushed WAL only)
 * and in bytes (anything else running on the cluster adds to a phase's figure).
 */
async function walPosition(c: pg.Client): Promise<{ lsn: string; bytes: bigint }> {
  const row = (await c.query<{ lsn: string; bytes: string }>(`SELECT pg_current_wal_flush_lsn()::text AS lsn, (pg_current_wal_flush_lsn() - '0/0')::text AS bytes`)).rows[0]!;
  return { lsn: row.lsn, bytes: BigInt(row.bytes) };
}

/** autocannon's requests approving the queue's deposits in turn; `sent()` says how many went. */
function approvals(queue: { m: Credentials; id: number }[]): { requests: unknown[]; sent: () => number } {
  let i = 0;
  return {
    requests: [{
      method: 'POST',
      setupRequest: (req: Record<string, unknown>) => {
        const next = queue[i++ % queue.length]!;
        return { ...req, path: `/v3/sandbox/deposits/${next.id}/approve`, headers: signed(next.m, '') };
      },
    }],
    sent: () => i,
  };
}

/**
 * `BENCH_WAL_DETAIL=1`: the WAL a phase wrote, by relation (pg_walinspect; the first block a record
 * names), per completion: which tables and indexes a completion's writes cost. Records of other
 * databases are left out; commit records and others naming no block are "(no block)".
 */
async function printWalByRelation(c: pg.Client, from: string, to: string, completions: number): Promise<void> {
  await c.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  const { rows } = await c.query<{ rel: string; records: string; bytes: string; fpi: string }>(
    `WITH w AS (
       SELECT w.record_length, w.fpi_length, regexp_match(w.block_ref, 'rel \\d+/(\\d+)/(\\d+)') AS m
       FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) w
     )
     SELECT coalesce(c.relname, CASE WHEN w.m IS NULL THEN '(no block)' ELSE 'relfilenode ' || w.m[2] END) AS rel,
            count(*) AS records, sum(w.record_length) AS bytes, sum(w.fpi_length) AS fpi
     FROM w LEFT JOIN pg_class c ON c.relfilenode = w.m[2]::oid
     WHERE w.m IS NULL OR w.m[1]::oid = (SELECT oid FROM pg_database WHERE datname = current_database())
     GROUP BY 1 ORDER BY sum(w.record_length) DESC LIMIT 20`,
    [from, to],
  );
  console.log('    WAL by relation, per completion (records, bytes, of which full-page images):');
  for (const r of rows) {
    console.log(`      ${(Number(r.records) / completions).toFixed(2).padStart(6)}  ${String(Math.round(Number(r.bytes) / completions)).padStart(6)}  ${String(Math.round(Number(r.fpi) / completions)).padStart(6)}  ${r.rel}`);
  }
}

/**
 * Settles the seeded fixture before a phase is measured: the panel-figure deltas of the seeded
 * deposits (one per row, from the insert trigger of migration 025) are folded, as the deposit
 * worker would have folded them as those deposits were created, and the tables they touched are
 * vacuumed. Left to the phase, folding and vacuuming tens of thousands of seeded rows ran during
 * the completions and was counted as theirs: 26-39 WAL records per completion on
 * panel_day_deltas (3.7 once settled; BENCH_WAL_DETAIL), and the fold's and autovacuum's CPU.
 */
async function settleSeed(c: pg.Client): Promise<void> {
  const q: Queryable = {
    query: async (sql, params) => {
      const r = await c.query(sql, params as unknown[]);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    },
    exec: async (sql) => {
      await c.query(sql);
    },
  };
  await foldAllDayFigures(q);
  await c.query('VACUUM (ANALYZE) deposits, panel_day_deltas, panel_day_figures');
}

const WARMUP_SECONDS = 2;

/**
 * Before anything is measured, creations and completions (of every merchant) run for
 * WARMUP_SECONDS each, and the tables are analyzed: the server's JIT and pools are warm, every
 * merchant's ledger accounts exist, and the database has a history, as a server in service has.
 * Without it the completion phases ran on plans made for empty tables and kept for the rest of
 * the run: the foreign-key check of every ledger entry (ledger_entries.transfer_id) read all of
 * ledger_transfers by a sequential scan, planned when that table was empty (19,248 scans reading
 * 87 M rows in one run, pg_stat_user_tables), and the replay store's update read signed_requests
 * the same way; PostgreSQL replans them once an ANALYZE (autovacuum's, in service) has seen the
 * tables grow, which the bench's few seconds never reach. `BENCH_COLD=1` skips it.
 */
async function warmUp(c: pg.Client, url: string, merchants: Credentials[], create: () => Promise<unknown>): Promise<void> {
  await create();
  const template = (await c.query<{ id: number }>(`SELECT max(id) AS id FROM deposits WHERE status = 'PENDING'`)).rows[0]!.id;
  const ids = await seedPending(c, template, merchants, 300);
  const queue = merchants.flatMap((m) => ids.get(m.merchant_id)!.map((id) => ({ m, id })));
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_SECONDS, requests: approvals(queue).requests });
  await c.query('ANALYZE');
}

/** Transactions committed in the scratch database so far (this client's own reads add a few). */
async function commits(c: pg.Client): Promise<number> {
  return Number((await c.query<{ n: string }>(`SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`)).rows[0]!.n);
}

function printWaits(w: WaitProfile): void {
  console.log(`    database: ${Math.round(w.lockShare * 100)} % of active backends' samples waiting on a lock (${w.samples} samples); rows queued on: ${
    w.queuedAccounts.length ? w.queuedAccounts.map(([k, n]) => `${k} (${n})`).join(', ') : 'none'}`);
  for (const [k, n] of w.top) console.log(`      ${String(n).padStart(5)}  ${k}`);
}

export async function benchHotAccounts(): Promise<Record<string, unknown>> {
  const db = await createScratchDatabase(postgresUrl() ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'caja_scale_hot');
  const { url, child } = await startServer(db.url, { CAJA_PROCESSES: '1' });
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const merchants: Credentials[] = [];
    for (let i = 1; i <= MERCHANTS; i++) merchants.push((await admin(url, 'POST', '/admin/merchants', { name: `Hot ${i}` }, ADMIN_TOKEN)).body);
    const one = merchants[0]!;
    let n = 0;
    const tag = randomBytes(3).toString('hex');
    const createFor = (duration: number) => autocannon({
      url, connections: CONNECTIONS, duration,
      requests: [{
        method: 'POST', path: '/v3/deposits',
        setupRequest: (req: Record<string, unknown>) => {
          const body = JSON.stringify({ country: 'BR', currency: 'BRL', amount: '100.00', payment_method: 'IX', invoice_id: `hot-${tag}-${++n}`, payer: PAYER });
          return { ...req, body, headers: { ...signed(one, body), 'content-type': 'application/json' } };
        },
      }],
    });
    if (!process.env.BENCH_COLD) await warmUp(c, url, merchants, () => createFor(WARMUP_SECONDS));
    // The scratch database's own backends' CPU (by their process title): on a machine shared
    // with other work, every postgres process's CPU is partly others'.
    const dbName = new URL(db.url).pathname.slice(1);
    const { result: create, cpu: createCpu } = await withCpuSplit(() => serverPids(child.pid!), async () => {
      const result = await createFor(SECONDS);
      return { result, requests: result.requests.total };
    }, dbName);
    const creations = Math.round(create.requests.average);
    console.log(`  creations (1 merchant): ${creations}/s (p50 ${create.latency.p50} ms, p99 ${create.latency.p99} ms)`);
    if (!('skipped' in createCpu)) console.log(`    CPU per creation: server ${createCpu.server_us_per_request} µs, PostgreSQL ${createCpu.postgres_us_per_request} µs (this database's backends ${createCpu.database_us_per_request} µs)`);
    const template = (await c.query<{ id: number }>(`SELECT max(id) AS id FROM deposits WHERE merchant_id = $1 AND status = 'PENDING'`, [one.merchant_id])).rows[0]!.id;
    // Enough pending deposits that no phase runs out (4 × the creation rate, per second).
    const perMerchant = Math.max(2000, creations * 4 * SECONDS);

    const completions = async (who: Credentials[], label: string) => {
      const ids = await seedPending(c, template, who, Math.ceil(perMerchant / who.length) * (who.length === 1 ? 1 : 2));
      // Interleaved: consecutive requests go to different merchants.
      const queue: { m: Credentials; id: number }[] = [];
      for (let r = 0; ; r++) {
        const row = who.filter((m) => r < ids.get(m.merchant_id)!.length).map((m) => ({ m, id: ids.get(m.merchant_id)![r]! }));
        if (row.length === 0) break;
        queue.push(...row);
      }
      if (!process.env.BENCH_UNSETTLED) await settleSeed(c);
      const sends = approvals(queue);
      const commitsBefore = await commits(c);
      const walBefore = await walPosition(c);
      const { result: r, waits, cpu } = await withCpuSplit(() => serverPids(child.pid!), async () => {
        const sampled = await sampleWaits(db.url, () => autocannon({ url, connections: CONNECTIONS, duration: SECONDS, requests: sends.requests }));
        return { ...sampled, requests: sends.sent() };
      }, dbName);
      const i = sends.sent();
      const commitsPer = (await commits(c)) - commitsBefore;
      const walAfter = await walPosition(c);
      const walPer = Number(walAfter.bytes - walBefore.bytes) / Math.max(1, i);
      const rate = Math.round(r.requests.average);
      console.log(`  completions (${label}): ${rate}/s = ${(rate / creations).toFixed(2)} × creations (p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.non2xx} non-2xx)`);
      printWaits(waits);
      if (!('skipped' in cpu)) console.log(`    CPU per completion: server ${cpu.server_us_per_request} µs, PostgreSQL ${cpu.postgres_us_per_request} µs (this database's backends ${cpu.database_us_per_request} µs), load generator ${cpu.load_generator_us_per_request} µs; ${(commitsPer / Math.max(1, i)).toFixed(2)} commits, ${Math.round(walPer)} bytes of WAL`);
      if (process.env.BENCH_WAL_DETAIL) await printWalByRelation(c, walBefore.lsn, walAfter.lsn, Math.max(1, i));
      return { rate, cpu, ratio: Math.round((rate / creations) * 100) / 100, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, queue, used: i, waits };
    };
    // 70 % of a phase's peak, evenly paced, on deposits the peak did not reach.
    const at70Of = async (phase: Awaited<ReturnType<typeof completions>>, label: string) => {
      const rest = phase.queue.slice(phase.used);
      const rate = Math.max(1, Math.round(phase.rate * 0.7));
      let k = 0;
      const r = await paced(url, rate, SECONDS, () => {
        const next = rest[k++ % rest.length]!;
        return { method: 'POST', path: `/v3/sandbox/deposits/${next.id}/approve`, headers: signed(next.m, '') };
      });
      console.log(`  completions at 70 % (${rate}/s, ${label}): p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, ${r.errors} errors`);
      return { rate, p50_ms: r.p50_ms, p99_ms: r.p99_ms, errors: r.errors };
    };
    const single = await completions([one], '1 merchant');
    const oneAt70 = await at70Of(single, '1 merchant');
    const twenty = await completions(merchants, `${MERCHANTS} merchants`);
    const at70 = await at70Of(twenty, `${MERCHANTS} merchants`);
    const check = await admin(url, 'GET', '/admin/ledger/check?full=true', undefined, ADMIN_TOKEN);
    console.log(`  ledger check: ${check.status} ${check.body.ok ? 'ok' : JSON.stringify(check.body.problems).slice(0, 300)}`);
    return {
      creations, completionsOne: single.rate, completionsTwenty: twenty.rate, ratioOne: single.ratio, ratioTwenty: twenty.ratio,
      lockShareOne: single.waits.lockShare, lockShareTwenty: twenty.waits.lockShare,
      oneAt70, at70, ledgerOk: check.status === 200,
    };
  } finally {
    await c.end();
    await stopServer(child);
    await db.drop();
  }
}
