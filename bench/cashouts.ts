// Cashout creation benchmark: signed POST /v3/cashout per second (validation, the amount reserved
// on the ledger, history row and event in one statement) against PostgreSQL, for one merchant
// (every reservation contends for the same two account rows) and for 20 merchants, with one
// server process and with CAJA_PROCESSES=N (BENCH_PROCESSES, default the number of cores). The
// baseline is the database itself doing the same writes: pgbench running a script of the real
// statements (the cashout with its history row and event, then the ledger transfer) in one
// transaction, with as many connections as the servers' pools, in the same run.
// Alone: `node --import tsx bench/cashouts.ts` (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, CONNECTIONS, DURATION, freshDatabase, runHttp, startServer, stopServer, summary, WARMUP } from './deposits.ts';

/** The server's pg pool size (src/db/db.ts): pgbench gets as many connections per process. */
const POOL = 20;
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? availableParallelism());
const MERCHANTS = 20;
const CPF = '52998224725';

interface Merchant {
  merchant_id: number;
  cashouts: { login: string; pass: string; secret_key: string };
}

async function adminCall(url: string, path: string, body: unknown): Promise<any> {
  const r = await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** Signed cashout creations, round-robin over `merchants`; each with its own external_id. */
function cashoutRequests(merchants: Merchant[], tag: string) {
  let n = 0;
  return [{
    method: 'POST',
    path: '/v3/cashout',
    setupRequest: (req: Record<string, unknown>) => {
      const m = merchants[n % merchants.length]!;
      const body = JSON.stringify({
        login: m.cashouts.login, pass: m.cashouts.pass, external_id: `bench-${tag}-${++n}`, country: 'BR', currency: 'USD', amount: '1.00',
        document_id: CPF, beneficiary_name: 'Maria', beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
      });
      return { ...req, body, headers: { 'content-type': 'application/json', 'payload-signature': createHmac('sha256', m.cashouts.secret_key).update(body).digest('hex') } };
    },
  }];
}

/** The statements one cashout creation runs, as a pgbench script (the merchant drawn per transaction). */
function pgbenchScript(merchantIds: number[]): string {
  const pick = merchantIds.length === 1 ? `\\set m ${merchantIds[0]}` : `\\set i random(0, ${merchantIds.length - 1})\n\\set m ${merchantIds[0]} + :i`;
  return `${pick}
\\set n random(1, 1000000000000)
BEGIN;
WITH c AS (
  INSERT INTO cashouts (merchant_id, external_id, country, amount, currency, local_amount, local_currency, usd_amount, fx_rate,
    settlement_amount, settlement_currency, status, document_id, document_type, beneficiary_name, beneficiary_lastname, bank_code, bank_name,
    bank_account, bank_branch, account_type, email, phone, address, notification_url, comments, pickup_at, created_at, updated_at)
  VALUES (:m, 'pgb-' || :client_id || '-' || :n, 'BR', 1.00, 'USD', 5.43, 'BRL', 1.00, 5.4321, 1.00, 'USD', 'PENDING', '${CPF}', NULL, 'Maria', 'Souza',
    '260', 'NU Pagamentos', '12345-6', '0001', 'CHECKING', NULL, NULL, NULL, NULL, NULL, now() + interval '1 hour', now(), now())
  ON CONFLICT (merchant_id, external_id) DO NOTHING RETURNING *
), h AS (
  INSERT INTO cashout_status_changes (cashout_id, from_status, to_status, cause, actor, created_at) SELECT id, NULL, status, 'created', 'merchant', created_at FROM c
), e AS (
  INSERT INTO events (merchant_id, type, subject_type, subject_id, data)
  SELECT merchant_id, 'cashout.created', 'cashout', id, json_build_object('cashout_id', id, 'external_id', external_id, 'status', status, 'amount', amount::text, 'currency', currency, 'at', now()::text) FROM c
)
SELECT id AS cashout_id FROM c \\gset
WITH t AS (
  INSERT INTO ledger_transfers (merchant_id, kind, subject_type, subject_id, pending, resolves, description, created_at)
  VALUES (:m, 'cashout.reserve', 'cashout', :cashout_id, true, NULL, NULL, now()) ON CONFLICT DO NOTHING RETURNING id
), p AS (
  SELECT * FROM unnest(ARRAY[:m, :m]::integer[], ARRAY['USD', 'USD']::text[], ARRAY['available', 'reserved']::text[], ARRAY[-1.00, 1.00]::numeric[], ARRAY[0, 0]::integer[]) AS p(merchant_key, currency, kind, amount, bank_key)
), lk AS (
  SELECT acc.id, acc.merchant_key, acc.currency, acc.kind, acc.bank_key FROM ledger_accounts acc
  WHERE (acc.merchant_key, acc.currency, acc.kind, acc.bank_key) IN (SELECT merchant_key, currency, kind, bank_key FROM p)
), a AS (
  SELECT * FROM lk
  UNION ALL
  SELECT ledger_account_id(n.merchant_key, n.currency, n.kind, n.bank_key), n.merchant_key, n.currency, n.kind, n.bank_key
  FROM (SELECT DISTINCT merchant_key, currency, kind, bank_key FROM p
        WHERE EXISTS (SELECT 1 FROM t) AND NOT EXISTS (SELECT 1 FROM lk WHERE (lk.merchant_key, lk.currency, lk.kind, lk.bank_key) = (p.merchant_key, p.currency, p.kind, p.bank_key))
        ORDER BY merchant_key, currency, kind, bank_key) n
), e AS (
  INSERT INTO ledger_entries (transfer_id, account_id, amount) SELECT t.id, a.id, p.amount FROM t, p JOIN a USING (merchant_key, currency, kind, bank_key)
)
SELECT id FROM t;
COMMIT;
`;
}

function pgbench(databaseUrl: string, merchantIds: number[], seconds: number, connections = POOL) {
  const file = join(mkdtempSync(join(tmpdir(), 'caja-pgbench-')), 'cashout.sql');
  writeFileSync(file, pgbenchScript(merchantIds));
  const r = spawnSync('pgbench', ['-n', '-M', 'prepared', '-c', String(connections), '-j', '2', '-T', String(seconds), '-r', '-f', file, databaseUrl], { encoding: 'utf8' });
  const tps = /tps = ([\d.]+)/.exec(r.stdout);
  const latency = /latency average = ([\d.]+) ms/.exec(r.stdout);
  const failed = /number of failed transactions: (\d+)/.exec(r.stdout);
  if (!tps) throw new Error(`pgbench failed: ${r.stderr || r.stdout}`);
  return { tps: Math.round(Number(tps[1])), latency_avg_ms: Number(latency?.[1] ?? 0), failed: Number(failed?.[1] ?? 0), connections };
}

export async function benchCashouts(): Promise<Record<string, unknown>> {
  const db = await freshDatabase();
  // One master key, so that the N-process server reads the credentials the first one issued.
  const masterKey = randomBytes(32).toString('base64');
  let server = await startServer(db.url, { CAJA_MASTER_KEY: masterKey });
  try {
    const url = server.url;
    const merchants: Merchant[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const m = (await adminCall(url, '/admin/merchants', { name: `Bench payouts ${i}` })) as Merchant;
      await adminCall(url, `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'credit', amount: '100000000.00', currency: 'USD', reason: 'bench funding' });
      merchants.push(m);
    }
    await runHttp(url, WARMUP, cashoutRequests(merchants, 'warm'));
    const one = summary(await runHttp(url, DURATION, cashoutRequests(merchants.slice(0, 1), 'one')));
    const many = summary(await runHttp(url, DURATION, cashoutRequests(merchants, 'many')));
    await stopServer(server.child);
    let manyN: ReturnType<typeof summary> | null = null;
    if (PROCESSES > 1) {
      server = await startServer(db.url, { CAJA_MASTER_KEY: masterKey, CAJA_PROCESSES: String(PROCESSES) });
      await runHttp(server.url, WARMUP, cashoutRequests(merchants, 'warm-n'));
      manyN = summary(await runHttp(server.url, DURATION, cashoutRequests(merchants, 'many-n')));
      await stopServer(server.child);
    }
    // The servers are stopped: the baselines have the database to themselves, as the servers had.
    const ids = merchants.map((m) => m.merchant_id);
    const baseOne = pgbench(db.url, ids.slice(0, 1), DURATION);
    const baseMany = pgbench(db.url, ids, DURATION);
    const baseManyN = manyN ? pgbench(db.url, ids, DURATION, POOL * PROCESSES) : null;
    const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
    const result = {
      http_connections: CONNECTIONS,
      seconds: DURATION,
      cashout_create_one_merchant: one,
      cashout_create_20_merchants: many,
      ...(manyN ? { [`cashout_create_20_merchants_${PROCESSES}_processes`]: manyN } : {}),
      pgbench_same_writes_one_merchant: baseOne,
      pgbench_same_writes_20_merchants: baseMany,
      ...(baseManyN ? { [`pgbench_same_writes_20_merchants_${POOL * PROCESSES}_connections`]: baseManyN } : {}),
      ratios: {
        one_merchant_vs_pgbench: ratio(one.rps, baseOne.tps),
        twenty_merchants_vs_pgbench: ratio(many.rps, baseMany.tps),
        ...(manyN && baseManyN ? { [`twenty_merchants_${PROCESSES}_processes_vs_pgbench`]: ratio(manyN.rps, baseManyN.tps) } : {}),
      },
    };
    console.log(`cashouts, 1 merchant: ${one.rps} req/s (p50 ${one.p50_ms} ms, p99 ${one.p99_ms} ms, ${one.errors} errors); pgbench same writes ${baseOne.tps} tx/s → ${result.ratios.one_merchant_vs_pgbench}`);
    console.log(`cashouts, 20 merchants: ${many.rps} req/s (p50 ${many.p50_ms} ms, p99 ${many.p99_ms} ms, ${many.errors} errors); pgbench same writes ${baseMany.tps} tx/s → ${result.ratios.twenty_merchants_vs_pgbench}`);
    if (manyN && baseManyN) {
      console.log(`cashouts, 20 merchants, ${PROCESSES} processes: ${manyN.rps} req/s (p50 ${manyN.p50_ms} ms, p99 ${manyN.p99_ms} ms, ${manyN.errors} errors); pgbench ${baseManyN.connections} connections ${baseManyN.tps} tx/s → ${ratio(manyN.rps, baseManyN.tps)}`);
    }
    return result;
  } finally {
    await stopServer(server.child);
    await db.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await benchCashouts();
  console.log(JSON.stringify(r, null, 2));
  process.exit(0);
}
