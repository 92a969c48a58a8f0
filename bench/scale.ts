// `npm run bench -- scale`: what the hot paths cost when the tables hold a season of traffic,
// against what they cost on a copy of the same database before it grew.
//
//   1. Build (`scale-build`): a PostgreSQL database of 20 merchants and a few template lifecycles
//      made through the API (completed, expired, refunded, cashed out, HOSTED expired, pending),
//      copied to SCALE_BASE deposits (20,000: every merchant's pages full): the empty state,
//      kept as SCALE_EMPTY_DB (scale_empty). Then `CREATE DATABASE … TEMPLATE` copies it to
//      SCALE_GROWN_DB (scale_5m), grown to SCALE_DEPOSITS deposits (5,000,000) over 90 days
//      (bench/scale-grow.ts). Both are kept: growing 5 M takes half an hour.
//   2. Measure (`scale-measure`, bench/scale-measure.ts): both databases at once, each behind its
//      own server of the same compiled build, every path alternately on the empty one and on the
//      grown one, SCALE_ROUNDS times; the table is the ratio of the medians.
//
// `scale` does both. What the bench needs to measure a pair later (the merchants' credentials,
// the master key that encrypts their secrets, the templates, the receiver's port) is kept in each
// database, in a table `scale_bench` the service never reads.
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config/config.ts';
import { openContext } from '../src/server/runtime.ts';
import { checkLedger } from '../src/ledger/check.ts';
import { admin, cashoutRequest, type Credentials, V3Client } from '../test/helpers/clients.ts';
import { postgresUrl } from '../test/helpers/databases.ts';
import { cpf } from '../test/helpers/documents.ts';
import { ADMIN_TOKEN, startServer, stopServer } from './deposits.ts';
import { grow, type Templates } from './scale-grow.ts';

const N = Number(process.env.SCALE_DEPOSITS ?? 5_000_000);
/** The empty state: enough deposits that every merchant's pages are full. */
const BASE = Number(process.env.SCALE_BASE ?? 20_000);
export const EMPTY_DB = process.env.SCALE_EMPTY_DB ?? 'scale_empty';
export const GROWN_DB = process.env.SCALE_GROWN_DB ?? (N === 5_000_000 ? 'scale_5m' : `scale_${N}`);
const RECEIVER_PORT = Number(process.env.SCALE_RECEIVER_PORT ?? 29700);

/** What measuring a kept pair needs, stored in the pair itself. */
export interface ScaleMeta {
  masterKey: string;
  creds: Credentials[];
  templates: Templates;
  receiverPort: number;
}

export const ADMIN_URL = postgresUrl() ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

export async function adminQuery(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await c.query(sql, params);
  } finally {
    await c.end();
  }
}

export async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult<T>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query<T>(sql, params);
  } finally {
    await c.end();
  }
}

export async function readMeta(url: string): Promise<ScaleMeta> {
  const { rows } = await query<{ meta: ScaleMeta }>(url, `SELECT meta FROM scale_bench`).catch((e: Error) => {
    throw new Error(`${databaseName(url)} has no scale_bench table: not built by \`npm run bench -- scale-build\` (${e.message})`);
  });
  return rows[0]!.meta;
}

/** The receiver of the merchants' notifications (the templates' are delivered, as the copies are). */
export function receiver(port: number): Promise<Server> {
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

const BR_PAYER = { document: cpf('529982247'), first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const ACCOUNT = { beneficiary: 'Ana Silva', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' };

async function ok(r: { status: number; text: string }, what: string) {
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
}

/** The template lifecycles on the first merchant, through the API as a merchant makes them. */
async function makeTemplates(url: string, m: Credentials, merchants: number[]): Promise<Templates> {
  const v3 = V3Client.deposits(url, m);
  let n = 0;
  const deposit = async () => {
    const r = await v3.post('/v3/deposits', { country: 'BR', currency: 'BRL', amount: '100.00', payment_method: 'IX', invoice_id: `tpl-${++n}`, payer: BR_PAYER });
    await ok(r, 'template deposit');
    return r.body.deposit_id as number;
  };
  const approved = async () => {
    const id = await deposit();
    await ok(await v3.post(`/v3/sandbox/deposits/${id}/approve`, ''), 'approve');
    return id;
  };
  const completed = await approved();
  const expired = await deposit();
  await ok(await v3.post(`/v3/sandbox/deposits/${expired}/expire`, ''), 'expire');
  const refunded = await approved();
  const refund = await v3.post('/v3/refunds', { deposit_id: refunded, amount: '10.00', bank_account: ACCOUNT });
  await ok(refund, 'refund');
  await ok(await v3.post(`/v3/sandbox/refunds/${refund.body.refund_id}/complete`, ''), 'refund complete');
  const cashedOut = await approved();
  const co = await cashoutRequest(url, m, 'POST', '/v3/cashout', {
    country: 'BR', currency: 'USD', amount: '2.00', external_id: 'tpl-cashout', document_id: cpf('529982247'), beneficiary_name: 'Ana',
    beneficiary_lastname: 'Silva', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
  });
  await ok(co, 'cashout');
  await ok(await v3.post(`/v3/sandbox/cashouts/${co.body.cashout_id}/deliver`, ''), 'deliver');
  await ok(await v3.post(`/v3/sandbox/cashouts/${co.body.cashout_id}/complete`, ''), 'cashout complete');
  const hosted = await v3.post('/v3/deposits', { country: 'MX', currency: 'MXN', amount: '250.00', invoice_id: `tpl-${++n}`, payer: { ...BR_PAYER, document: 'GODE561231GR8' } });
  await ok(hosted, 'hosted');
  await ok(await v3.post(`/v3/sandbox/deposits/${hosted.body.deposit_id}/expire`, ''), 'expire');
  const pending = await deposit();
  return { merchantId: m.merchant_id, merchants, completed, expired, refunded, cashedOut, hostedExpired: hosted.body.deposit_id, pending };
}

export async function vacuum(url: string): Promise<void> {
  await query(url, 'VACUUM ANALYZE');
}

/**
 * The full ledger check, in-process and without the service's statement timeout (it reads every
 * row: minutes at 5 M). It proves what growing wrote, and leaves the checkpoint the incremental
 * checks start from.
 */
export function fullLedgerCheck(url: string, masterKey: string): Promise<number> {
  return ledgerCheck(url, masterKey, true);
}

/** The incremental check, in-process: brings the checkpoint up to date, however far behind. */
export function ledgerCheckpoint(url: string, masterKey: string): Promise<number> {
  return ledgerCheck(url, masterKey, false);
}

async function ledgerCheck(url: string, masterKey: string, full: boolean): Promise<number> {
  const ctx = await openContext(loadConfig({
    ...process.env, DATABASE_URL: url, CAJA_ENV: 'staging', CAJA_MASTER_KEY: masterKey, CAJA_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'warn',
    CAJA_DB_STATEMENT_TIMEOUT_MS: '3000000', CAJA_DB_QUERY_TIMEOUT_MS: '3600000', CAJA_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '3600000',
  }));
  try {
    const t = Date.now();
    const report = await checkLedger(ctx.db, { full });
    if (!report.ok) throw new Error(`ledger check of ${databaseName(url)} failed: ${report.problems.slice(0, 10).join('; ')}`);
    return Date.now() - t;
  } finally {
    await ctx.db.close();
  }
}

async function createDatabase(name: string, template?: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name}: lower-case letters, digits and _ only`);
  const exists = (await adminQuery(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount;
  if (exists) throw new Error(`database ${name} exists: measure it with \`npm run bench -- scale-measure\`, or drop it (or name another with SCALE_EMPTY_DB / SCALE_GROWN_DB) to build anew`);
  await adminQuery(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
}

/** The empty state, built through the API and kept as its own database. */
async function buildEmpty(name: string, log: (s: string) => void): Promise<ScaleMeta> {
  await createDatabase(name);
  const url = databaseUrl(name);
  const masterKey = randomBytes(32).toString('base64');
  const hook = await receiver(RECEIVER_PORT);
  const creds: Credentials[] = [];
  let templates: Templates;
  try {
    const { url: api, child } = await startServer(url, { CAJA_MASTER_KEY: masterKey, CAJA_PROCESSES: '1' });
    try {
      for (let i = 1; i <= 20; i++) {
        const r = await admin(api, 'POST', '/admin/merchants', { name: `Scale ${i}`, notification_url: `http://127.0.0.1:${RECEIVER_PORT}/hook/${i}` }, ADMIN_TOKEN);
        await ok(r, 'merchant');
        creds.push(r.body);
      }
      templates = await makeTemplates(api, creds[0]!, creds.map((m) => m.merchant_id));
      // Until the templates' notifications are delivered: the copies are, with their attempt.
      for (let i = 0; i < 100; i++) {
        const pending = Number((await query<{ n: string }>(url, `SELECT count(*) AS n FROM notifications WHERE status = 'pending'`)).rows[0]!.n);
        if (pending === 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await stopServer(child);
    }
  } finally {
    hook.close();
  }
  await grow(url, templates, BASE, log);
  const meta: ScaleMeta = { masterKey, creds, templates, receiverPort: RECEIVER_PORT };
  await query(url, `CREATE TABLE scale_bench (meta jsonb NOT NULL)`);
  await query(url, `INSERT INTO scale_bench (meta) VALUES ($1)`, [JSON.stringify(meta)]);
  await vacuum(url);
  log(`full ledger check of ${name}: ${await fullLedgerCheck(url, masterKey)} ms`);
  return meta;
}

/** Builds the pair: the empty state, then a copy of it grown to N deposits. */
export async function benchScaleBuild(): Promise<Record<string, unknown>> {
  const log = (s: string) => console.log(`  ${new Date().toISOString().slice(11, 19)} ${s}`);
  log(`building ${EMPTY_DB} (${BASE.toLocaleString('en')} deposits)`);
  const meta = await buildEmpty(EMPTY_DB, log);
  log(`copying ${EMPTY_DB} to ${GROWN_DB}`);
  await createDatabase(GROWN_DB, EMPTY_DB);
  const url = databaseUrl(GROWN_DB);
  const started = Date.now();
  await grow(url, meta.templates, N - BASE, log);
  log('VACUUM ANALYZE');
  await vacuum(url);
  const growSeconds = Math.round((Date.now() - started) / 1000);
  log(`grown and vacuumed in ${growSeconds} s`);
  const fullCheckMs = await fullLedgerCheck(url, meta.masterKey);
  log(`full ledger check of ${GROWN_DB}: ${fullCheckMs} ms`);
  console.log(`kept ${databaseUrl(EMPTY_DB)} and ${url}`);
  return { empty: databaseUrl(EMPTY_DB), grown: url, deposits: N, growSeconds, fullCheckMs };
}

/** The pair to measure: SCALE_REUSE=<empty url>,<grown url>, or the two names above. */
export function pairToMeasure(): { empty: string; grown: string } {
  const reuse = process.env.SCALE_REUSE?.split(',').map((s) => s.trim()).filter(Boolean);
  if (reuse && reuse.length !== 2) throw new Error('SCALE_REUSE: two database URLs, the empty one first, separated by a comma');
  const [empty, grown] = reuse ?? [databaseUrl(EMPTY_DB), databaseUrl(GROWN_DB)];
  return { empty: empty!, grown: grown! };
}

export async function benchScaleMeasure(): Promise<Record<string, unknown>> {
  const { measurePair } = await import('./scale-measure.ts');
  const { empty, grown } = pairToMeasure();
  return measurePair(empty, grown);
}

export async function benchScale(): Promise<Record<string, unknown>> {
  const built = await benchScaleBuild();
  const measured = await benchScaleMeasure();
  return { built, measured };
}
