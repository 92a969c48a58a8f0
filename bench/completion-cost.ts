// What one completion costs the database and the server's process, in CPU time rather than
// requests a second: CPU time is what a change of the statements moves, and unlike a rate it holds
// on a machine shared with other work. In-process, on PostgreSQL: one merchant's pending BR Pix
// deposits (copies of one made through the API) completed in batches of BATCH (64, what
// CAJA_TRANSITION_BATCH_SIZE lets concurrent approvals share) through transitionAllIn, on one
// connection whose backend's CPU time is read from /proc before and after; every FOLD_EVERY
// batches the balance fold worker's pass runs on the same connection (its cost is the
// completions' too: it folds and deletes the deltas they appended, and vacuums their dead rows).
//   node --import tsx bench/completion-cost.ts [batches, 100] [batch size, 64]
// It prints per completion: the backend's CPU, this process's CPU (the transitions' JavaScript),
// the rows the batches left in the delta tables before folding, and the WAL of three more batches
// and a fold by relation (this database's records: a count the machine's load does not move).
import { readFileSync } from 'node:fs';
import { startTestServer } from '../test/helpers/server.ts';
import { createMerchant, V3Client } from '../test/helpers/clients.ts';
import { cpf } from '../test/helpers/documents.ts';
import { openPostgres, type Queryable } from '../src/db/db.ts';
import { transitionAllIn } from '../src/deposits/transitions.ts';
import { foldBalances } from '../src/balances/fold-worker.ts';

const BATCHES = Number(process.argv[2] ?? 100);
const BATCH = Number(process.argv[3] ?? 64);
const FOLD_EVERY = 8;
const TICK_US = 1e6 / 100; // /proc/<pid>/stat counts clock ticks (USER_HZ, 100 on Linux)

function backendCpuUs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_US;
}

const s = await startTestServer('pg');
try {
  const m = await createMerchant(s.url, 'Completion cost');
  const created = await V3Client.deposits(s.url, m).post('/v3/deposits', {
    country: 'BR', amount: '100.00', currency: 'USD', payment_method: 'IX',
    payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
  });
  if (created.status !== 200) throw new Error(created.text);
  const template = created.body.deposit_id as number;
  const cols = (await s.ctx.db.query<{ c: string }>(
    `SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'deposits' AND table_schema = current_schema()
     AND column_name NOT IN ('id', 'token', 'invoice_id', 'connector_reference') AND is_generated = 'NEVER' ORDER BY ordinal_position`,
  )).rows.map((r) => `"${r.c}"`);
  const total = (BATCHES + 7) * BATCH;
  const ids = (await s.ctx.db.query<{ id: number }>(
    `INSERT INTO deposits (${cols.join(', ')}, token, invoice_id, connector_reference)
     SELECT ${cols.map((c) => `d.${c}`).join(', ')}, md5('cost' || g), 'cost-' || g, CASE WHEN d.connector_reference IS NULL THEN NULL ELSE d.connector_reference || '-' || g END
     FROM deposits d, generate_series(1, $2::int) g WHERE d.id = $1 RETURNING id`,
    [template, total],
  )).rows.map((r) => r.id);
  const db = openPostgres(s.ctx.config.databaseUrl!, 1);
  const ctx = { ...s.ctx, db };
  await foldBalances(ctx);
  await db.exec('VACUUM ANALYZE');
  const pid = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  // The backend's CPU by statement (`COMPLETION_COST_BY_STATEMENT=1`; clock ticks, so a sum over many batches).
  const byStatement = new Map<string, number>();
  // `COMPLETION_COST_EXPLAIN=<statement name>`: the plan of that statement's tenth run, instead of running it.
  let explainSeen = 0;
  const traced = (q: Queryable): Queryable => !process.env.COMPLETION_COST_BY_STATEMENT ? q : {
    ...q,
    async query(sql, params, opts) {
      if (process.env.COMPLETION_COST_EXPLAIN === opts?.name && ++explainSeen === 10) {
        const plan = await q.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) ${sql}`, params);
        console.log(plan.rows.map((p) => p['QUERY PLAN']).join('\n'));
        return { rows: [], rowCount: 0 } as never;
      }
      const before = backendCpuUs(pid);
      const r = await q.query(sql, params, opts);
      const key = opts?.name ?? sql.replace(/\s+/g, ' ').trim().slice(0, 60);
      byStatement.set(key, (byStatement.get(key) ?? 0) + backendCpuUs(pid) - before);
      return r as never;
    },
  };
  const complete = (k: number) => db.tx((q) => transitionAllIn(traced(q), ctx, ids.slice(k * BATCH, (k + 1) * BATCH).map((depositId) => ({
    depositId, to: 'COMPLETED' as const, cause: 'payment' as const, opts: { actor: 'sandbox', merchantId: m.merchant_id },
  }))), { genericPlans: true });
  // Warm-up: plans made, caches filled, then the tables analyzed as autovacuum would have in
  // service (the foreign-key checks of ledger entries were otherwise planned on an empty
  // ledger_transfers: a sequential scan per entry, bench/hot-accounts.ts warmUp).
  for (let k = 0; k < 4; k++) await complete(k);
  // A ledger of a service in use (COMPLETION_COST_LEDGER transfers, 200,000 unless said): the
  // checks that look a transfer up are planned as on a ledger of that size. On the few hundred
  // transfers of the warm-up alone, PostgreSQL plans the foreign key of ledger_entries.transfer_id
  // as a sequential scan, kept while the table grows, and every entry then reads every transfer.
  // Each filler transfer moves 1 in and out of one account, so no balance changes; written
  // without triggers (session_replication_role), as bench/scale-grow.ts does.
  const filler = Number(process.env.COMPLETION_COST_LEDGER ?? 200_000);
  if (filler > 0) {
    await db.tx(async (q) => {
      await q.query('SET LOCAL session_replication_role = replica');
      await q.query(
        `WITH t AS (
           INSERT INTO ledger_transfers (kind, subject_type, subject_id, description)
           SELECT 'bench.filler', 'adjustment', g, 'bench/completion-cost.ts' FROM generate_series(1, $1::int) g RETURNING id
         )
         INSERT INTO ledger_entries (transfer_id, account_id, amount)
         SELECT t.id, a.id, x.amount FROM t, (SELECT min(id) AS id FROM ledger_accounts) a, (VALUES (1), (-1)) x(amount)`,
        [filler],
      );
    });
  }
  await foldBalances(ctx);
  await db.exec('VACUUM ANALYZE');
  const deltaRows = async () => (await db.query<{ b: number; p: number }>(
    'SELECT (SELECT count(*)::int FROM ledger_balance_deltas) AS b, (SELECT count(*)::int FROM panel_day_deltas) AS p',
  )).rows[0]!;
  let appended = { b: 0, p: 0 };
  const cpu0 = backendCpuUs(pid);
  const node0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let k = 4; k < BATCHES + 4; k++) {
    await complete(k);
    if ((k - 3) % FOLD_EVERY === 0) {
      const r = await deltaRows();
      appended = { b: appended.b + r.b, p: appended.p + r.p };
      await foldBalances(ctx);
    }
  }
  const r = await deltaRows();
  appended = { b: appended.b + r.b, p: appended.p + r.p };
  await foldBalances(ctx);
  const n = BATCHES * BATCH;
  const node = process.cpuUsage(node0);
  const done = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deposits WHERE status = 'COMPLETED' AND merchant_id = $1`, [m.merchant_id])).rows[0]!.n;
  if (done !== n + 4 * BATCH) throw new Error(`${done} completed, ${n + 4 * BATCH} expected`);
  console.log(JSON.stringify({
    completions: n, batch: BATCH,
    backend_cpu_us_per_completion: Math.round((backendCpuUs(pid) - cpu0) / n),
    process_cpu_us_per_completion: Math.round((node.user + node.system) / n),
    wall_us_per_completion: Math.round(((performance.now() - wall0) * 1000) / n),
    balance_deltas_per_completion: Number((appended.b / n).toFixed(3)),
    figure_deltas_per_completion: Number((appended.p / n).toFixed(3)),
  }));
  for (const [k, us] of [...byStatement].sort((a, b) => b[1] - a[1])) console.log(`  ${String(Math.round(us / n)).padStart(5)} µs  ${k}`);
  // The WAL of WAL_BATCHES more batches and a fold, this database's records only (pg_walinspect;
  // other databases' records in the same range are left out): a count, unlike CPU, that load
  // does not move.
  const WAL_BATCHES = 3;
  await db.exec('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  const lsn = async () => (await db.query<{ l: string }>('SELECT pg_current_wal_flush_lsn()::text AS l')).rows[0]!.l;
  const from = await lsn();
  for (let k = BATCHES + 4; k < BATCHES + 4 + WAL_BATCHES; k++) await complete(k);
  await foldBalances(ctx);
  const to = await lsn();
  const wal = await db.query<{ rel: string; records: number; bytes: number }>(
    `WITH w AS (
       SELECT w.record_length, regexp_match(w.block_ref, 'rel \\d+/(\\d+)/(\\d+)') AS m, w.resource_manager, w.xid
       FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) w
     )
     SELECT coalesce(c.relname, CASE WHEN w.m IS NULL THEN '(' || w.resource_manager || ')' ELSE 'relfilenode ' || w.m[2] END) AS rel,
            count(*)::int AS records, sum(w.record_length)::int AS bytes
     FROM w LEFT JOIN pg_class c ON c.relfilenode = w.m[2]::oid
     WHERE CASE WHEN w.m IS NULL THEN w.xid IN (SELECT DISTINCT xid FROM w w2 WHERE w2.m[1]::oid = (SELECT oid FROM pg_database WHERE datname = current_database()))
                ELSE w.m[1]::oid = (SELECT oid FROM pg_database WHERE datname = current_database()) END
     GROUP BY 1 ORDER BY 3 DESC`,
    [from, to],
  );
  const per = WAL_BATCHES * BATCH;
  const sum = (k: 'records' | 'bytes') => wal.rows.reduce((a, r) => a + r[k], 0) / per;
  console.log(`WAL per completion (this database, ${WAL_BATCHES} batches and a fold): ${sum('records').toFixed(1)} records, ${Math.round(sum('bytes'))} bytes`);
  for (const r of wal.rows.slice(0, 16)) console.log(`  ${(r.records / per).toFixed(2).padStart(6)} ${String(Math.round(r.bytes / per)).padStart(6)}  ${r.rel}`);
  await db.close();
} finally {
  await s.close();
}
process.exit(0);
