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
//   completions at 70 % of the 20-merchant peak, evenly paced: p50 and p99
// Pending deposits to complete are copies of one the API created (as the scale bench grows).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';
import { admin, type Credentials, hmac } from '../test/helpers/clients.ts';
import { createScratchDatabase, postgresUrl } from '../test/helpers/databases.ts';
import { cpf } from '../test/helpers/documents.ts';
import { ADMIN_TOKEN, serverPids, startServer, stopServer } from './deposits.ts';
import { withCpuSplit } from './cpu-split.ts';
import { paced } from './paced.ts';
import { sampleWaits, type WaitProfile } from './waits.ts';

type Autocannon = (opts: Record<string, unknown>) => Promise<{ requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }>;
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

/** WAL written so far, in bytes: the whole cluster's (anything else running on it adds to a phase's figure). */
async function walBytes(c: pg.Client): Promise<bigint> {
  return BigInt((await c.query<{ b: string }>(`SELECT (pg_current_wal_lsn() - '0/0')::text AS b`)).rows[0]!.b);
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
    const create = await autocannon({
      url, connections: CONNECTIONS, duration: SECONDS,
      requests: [{
        method: 'POST', path: '/v3/deposits',
        setupRequest: (req: Record<string, unknown>) => {
          const body = JSON.stringify({ country: 'BR', currency: 'BRL', amount: '100.00', payment_method: 'IX', invoice_id: `hot-${tag}-${++n}`, payer: PAYER });
          return { ...req, body, headers: { ...signed(one, body), 'content-type': 'application/json' } };
        },
      }],
    });
    const creations = Math.round(create.requests.average);
    console.log(`  creations (1 merchant): ${creations}/s (p50 ${create.latency.p50} ms, p99 ${create.latency.p99} ms)`);
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
      let i = 0;
      const commitsBefore = await commits(c);
      const walBefore = await walBytes(c);
      const { result: r, waits, cpu } = await withCpuSplit(() => serverPids(child.pid!), async () => {
        const sampled = await sampleWaits(db.url, () => autocannon({
        url, connections: CONNECTIONS, duration: SECONDS,
        requests: [{
          method: 'POST',
          setupRequest: (req: Record<string, unknown>) => {
            const next = queue[i++ % queue.length]!;
            return { ...req, path: `/v3/sandbox/deposits/${next.id}/approve`, headers: signed(next.m, '') };
          },
        }],
        }));
        return { ...sampled, requests: i };
      });
      const commitsPer = (await commits(c)) - commitsBefore;
      const walPer = Number((await walBytes(c)) - walBefore) / Math.max(1, i);
      const rate = Math.round(r.requests.average);
      console.log(`  completions (${label}): ${rate}/s = ${(rate / creations).toFixed(2)} × creations (p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.non2xx} non-2xx)`);
      printWaits(waits);
      if (!('skipped' in cpu)) console.log(`    CPU per completion: server ${cpu.server_us_per_request} µs, PostgreSQL ${cpu.postgres_us_per_request} µs, load generator ${cpu.load_generator_us_per_request} µs; ${(commitsPer / Math.max(1, i)).toFixed(2)} commits, ${Math.round(walPer)} bytes of WAL`);
      return { rate, cpu, ratio: Math.round((rate / creations) * 100) / 100, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, queue, used: i, waits };
    };
    const single = await completions([one], '1 merchant');
    const twenty = await completions(merchants, `${MERCHANTS} merchants`);
    // 70 % of the 20-merchant peak, evenly paced, on deposits the peak did not reach.
    const rest = twenty.queue.slice(twenty.used);
    const rate = Math.max(1, Math.round(twenty.rate * 0.7));
    let k = 0;
    const at70 = await paced(url, rate, SECONDS, () => {
      const next = rest[k++ % rest.length]!;
      return { method: 'POST', path: `/v3/sandbox/deposits/${next.id}/approve`, headers: signed(next.m, '') };
    });
    console.log(`  completions at 70 % (${rate}/s, ${MERCHANTS} merchants): p50 ${at70.p50_ms} ms, p99 ${at70.p99_ms} ms, ${at70.errors} errors`);
    const check = await admin(url, 'GET', '/admin/ledger/check?full=true', undefined, ADMIN_TOKEN);
    console.log(`  ledger check: ${check.status} ${check.body.ok ? 'ok' : JSON.stringify(check.body.problems).slice(0, 300)}`);
    return {
      creations, completionsOne: single.rate, completionsTwenty: twenty.rate, ratioOne: single.ratio, ratioTwenty: twenty.ratio,
      lockShareOne: single.waits.lockShare, lockShareTwenty: twenty.waits.lockShare,
      at70: { rate, p50_ms: at70.p50_ms, p99_ms: at70.p99_ms, errors: at70.errors }, ledgerOk: check.status === 200,
    };
  } finally {
    await c.end();
    await stopServer(child);
    await db.drop();
  }
}
