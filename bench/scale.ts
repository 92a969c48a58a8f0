// `npm run bench -- scale`: what the hot paths cost when the tables hold a season of traffic,
// against what they cost on the same database before it grew, in the same run.
//
//   1. A scratch PostgreSQL database, 20 merchants, and a few template lifecycles made through
//      the API (completed, expired, refunded, cashed out, HOSTED expired, pending), copied to
//      SCALE_BASE deposits (20,000: every merchant's pages full): the "empty" state.
//   2. Every path measured at that empty state.
//   3. The database grown to SCALE_DEPOSITS deposits (default 5,000,000) over 90 days by copying
//      the templates' rows (bench/scale-grow.ts), then VACUUM ANALYZE.
//   4. Every path measured again; the table prints cost at N / cost at empty (≤ 1.25 is the
//      target), then table and index sizes and bytes per deposit.
//
// HTTP paths run against the compiled server in a child process (autocannon, SCALE_SECONDS each,
// SCALE_CONNECTIONS connections, 32 for the panel's pages: 32 signed-in users); the notification
// claim, the expiry sweep and the replay purge call the service's own functions with the server
// stopped, on a backlog seeded the same way in both states. SCALE_KEEP=1 keeps the database.
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';
import { loadConfig } from '../src/config/config.ts';
import { openContext } from '../src/server/runtime.ts';
import { claimDue } from '../src/notifications/store.ts';
import { expireDueDeposits } from '../src/deposits/worker.ts';
import { purgeExpiredRequests } from '../src/auth/replay.ts';
import { admin, cashoutRequest, type Credentials, hmac, V3Client } from '../test/helpers/clients.ts';
import { createScratchDatabase, postgresUrl } from '../test/helpers/databases.ts';
import { cpf } from '../test/helpers/documents.ts';
import { PanelClient } from '../test/panel/helpers.ts';
import { ADMIN_TOKEN, startServer, stopServer } from './deposits.ts';
import { grow, type Templates } from './scale-grow.ts';

type Autocannon = (opts: Record<string, unknown>) => Promise<{ requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; timeouts: number; '2xx': number }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const N = Number(process.env.SCALE_DEPOSITS ?? 5_000_000);
/** The "empty" state: enough deposits that every merchant's pages are full (the small database before it grew). */
const BASE = Number(process.env.SCALE_BASE ?? 20_000);
const SECONDS = Number(process.env.SCALE_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.SCALE_CONNECTIONS ?? 16);
const PANEL_USERS = 32;
const RECEIVER_PORT = Number(process.env.SCALE_RECEIVER_PORT ?? 44050);
const BACKLOG = 1000;

interface Figure {
  /** Requests per second (HTTP) or milliseconds per call (in-process). */
  value: number;
  unit: 'req/s' | 'ms';
  p99?: number;
}
type Figures = Record<string, Figure>;

const BR_PAYER = { document: cpf('529982247'), first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const ACCOUNT = { beneficiary: 'Ana Silva', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' };

function signed(login: string, secret: string, body: string): Record<string, string> {
  const xDate = new Date().toISOString();
  return { 'x-date': xDate, 'x-login': login, authorization: `SVC ${hmac(secret, xDate + login + body)}` };
}

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

function receiver(): Promise<Server> {
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  return new Promise((resolve) => s.listen(RECEIVER_PORT, '127.0.0.1', () => resolve(s)));
}

async function http(url: string, requests: Record<string, unknown>[], connections = CONNECTIONS): Promise<Figure> {
  const r = await autocannon({ url, connections, duration: SECONDS, requests });
  if (r.non2xx || r.errors || r.timeouts) console.warn(`  ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  return { value: Math.round(r.requests.average), unit: 'req/s', p99: r.latency.p99 };
}

const signedGet = (login: string, secret: string, paths: () => string) => [{
  method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: paths(), headers: signed(login, secret, '') }),
}];
const roundRobin = <T>(xs: T[]) => {
  let i = 0;
  return () => xs[i++ % xs.length]!;
};

async function timed(times: number, f: () => Promise<unknown>): Promise<Figure> {
  const t = process.hrtime.bigint();
  for (let i = 0; i < times; i++) await f();
  return { value: Number(process.hrtime.bigint() - t) / 1e6 / times, unit: 'ms' };
}

interface World {
  dbUrl: string;
  masterKey: string;
  creds: Credentials[];
  panels: PanelClient[];
}

/** Every path, against the server started on the database as it is now. */
async function measure(w: World, label: string): Promise<Figures> {
  const f: Figures = {};
  const { url, child } = await startServer(w.dbUrl, { CAJA_MASTER_KEY: w.masterKey, CAJA_PROCESSES: '1' });
  const c = new pg.Client({ connectionString: w.dbUrl });
  await c.connect();
  try {
    const big = w.creds[0]!;
    const small = w.creds[w.creds.length - 1]!;
    const mid = w.creds[9]!;
    const step = (name: string, fig: Figure) => {
      f[name] = fig;
      console.log(`  [${label}] ${name}: ${fig.value.toFixed(fig.unit === 'ms' ? 2 : 0)} ${fig.unit}${fig.p99 !== undefined ? ` (p99 ${fig.p99} ms)` : ''}`);
    };
    let n = 0;
    const tag = randomBytes(3).toString('hex');
    step('POST /v3/deposits (signed, HOSTED)', await http(url, [{
      method: 'POST', path: '/v3/deposits',
      setupRequest: (req: Record<string, unknown>) => {
        const body = JSON.stringify({ country: 'MX', currency: 'MXN', amount: '250.00', invoice_id: `scale-${tag}-${++n}`, payer: { ...BR_PAYER, document: 'GODE561231GR8', id: `u-${n % 5000}` } });
        return { ...req, body, headers: { ...signed(mid.deposits.login, mid.deposits.secret_key, body), 'content-type': 'application/json' } };
      },
    }]));
    // Deposits spread over the whole table (at N, most of them long out of the cache).
    const ids = (await c.query<{ id: number }>(
      `SELECT id FROM deposits WHERE merchant_id = $1 ORDER BY hashint4(id) LIMIT 5000`, [mid.merchant_id],
    )).rows.map((r) => r.id);
    step('GET /v3/deposits/{id}', await http(url, signedGet(mid.deposits.login, mid.deposits.secret_key, roundRobin(ids.map((id) => `/v3/deposits/${id}`)))));
    for (const [who, m] of [['largest', big], ['smallest', small]] as const) {
      step(`GET /v3/deposits first page (${who} merchant)`, await http(url, signedGet(m.deposits.login, m.deposits.secret_key, () => '/v3/deposits?limit=20')));
      const middle = (await c.query<{ id: number }>(
        `SELECT id FROM deposits WHERE merchant_id = $1 ORDER BY id OFFSET (SELECT count(*) / 2 FROM deposits WHERE merchant_id = $1) LIMIT 1`, [m.merchant_id],
      )).rows[0]?.id ?? 1;
      step(`GET /v3/deposits mid-history page (${who} merchant)`, await http(url, signedGet(m.deposits.login, m.deposits.secret_key, () => `/v3/deposits?limit=20&before=${middle}`)));
    }
    step('GET /v3/balance/transactions', await http(url, signedGet(big.deposits.login, big.deposits.secret_key, () => '/v3/balance/transactions?limit=25')));
    const middleTransfer = (await c.query<{ id: string }>(`SELECT id FROM ledger_transfers WHERE merchant_id = $1 ORDER BY id OFFSET (SELECT count(*) / 2 FROM ledger_transfers WHERE merchant_id = $1) LIMIT 1`, [big.merchant_id])).rows[0]?.id ?? '1';
    step('GET /v3/balance/transactions mid-history', await http(url, signedGet(big.deposits.login, big.deposits.secret_key, () => `/v3/balance/transactions?limit=25&starting_after=${middleTransfer}`)));
    step('GET /v3/events (first page)', await http(url, signedGet(big.deposits.login, big.deposits.secret_key, () => '/v3/events?limit=100')));
    const lastEvent = (await c.query<{ id: string }>(`SELECT max(id)::text AS id FROM events WHERE merchant_id = $1`, [big.merchant_id])).rows[0]!.id;
    step('GET /v3/events (tail)', await http(url, signedGet(big.deposits.login, big.deposits.secret_key, () => `/v3/events?limit=100&after=${lastEvent}`)));

    // The panel: one signed-in user per connection, all of the largest merchant.
    // Signed in afresh at each size: growing may outlast a session's idle limit.
    w.panels = [];
    {
      for (let i = 0; i < PANEL_USERS; i++) {
        const p = new PanelClient(url);
        const r = await p.signIn(big.panel.email, big.panel.password);
        if (r.status !== 200) throw new Error(`panel sign-in: ${r.status}`);
        w.panels.push(p);
      }
    }
    const cookies = w.panels.map((p) => p.cookieHeader);
    const panelGet = (paths: () => string) => {
      const cookie = roundRobin(cookies);
      return [{ method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: paths(), headers: { cookie: cookie() } }) }];
    };
    const sample = (await c.query<{ id: number; invoice_id: string; payer_email: string }>(
      `SELECT id, invoice_id, payer_email FROM deposits WHERE merchant_id = $1 ORDER BY hashint4(id) LIMIT 500`, [big.merchant_id],
    )).rows;
    step('panel home (32 users)', await http(url, panelGet(() => '/panel'), PANEL_USERS));
    step('panel search by invoice id (32 users)', await http(url, panelGet(roundRobin(sample.map((d) => `/panel/deposits?q=${encodeURIComponent(d.invoice_id)}`))), PANEL_USERS));
    step('panel search by payer e-mail (32 users)', await http(url, panelGet(roundRobin(sample.map((d) => `/panel/deposits?q=${encodeURIComponent(d.payer_email.toUpperCase())}`))), PANEL_USERS));
    step('panel deposit list (32 users)', await http(url, panelGet(() => '/panel/deposits'), PANEL_USERS));
    step('panel deposit page (32 users)', await http(url, panelGet(roundRobin(sample.map((d) => `/panel/deposits/${d.id}`))), PANEL_USERS));
    const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
    step('GET /metrics', await http(url, [{ method: 'GET', path: '/metrics', headers: bearer }], 4));
    // The full check first: it also proves what growing wrote, as the checks a live service runs
    // along the way would have; the incremental check then starts from there.
    const full = await timed(1, async () => {
      const r = await admin(url, 'GET', '/admin/ledger/check?full=true', undefined, ADMIN_TOKEN);
      if (r.status !== 200) throw new Error(`full ledger check: ${r.status} ${r.text.slice(0, 500)}`);
    });
    step('GET /admin/ledger/check?full=true (once)', full);
    step('GET /admin/ledger/check (incremental)', await http(url, [{ method: 'GET', path: '/admin/ledger/check', headers: bearer }], 1));
  } finally {
    await stopServer(child);
  }

  // The workers' statements, on a backlog seeded the same way at both sizes, the server stopped.
  const ctx = await openContext(loadConfig({ ...process.env, DATABASE_URL: w.dbUrl, CAJA_ENV: 'staging', CAJA_MASTER_KEY: w.masterKey, CAJA_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'warn' }));
  try {
    const mid = w.creds[9]!.merchant_id;
    // Their own event: rows of a template's event would be copied with it by the next growth.
    await c.query(
      `WITH e AS (INSERT INTO events (merchant_id, type, subject_type, subject_id, data) VALUES ($1, 'bench.claim', 'deposit', 0, '{}') RETURNING id)
       INSERT INTO notifications (event_id, merchant_id, subject_key, kind, url, content_type, body, signing_set)
       SELECT e.id, $1, 'bench:' || g, n.kind, n.url, n.content_type, n.body, n.signing_set
       FROM e, (SELECT * FROM notifications ORDER BY id DESC LIMIT 1) n, generate_series(1, $2) g`,
      [mid, BACKLOG],
    );
    const claim = { limit: 100, leaseSeconds: 60, token: 'bench', excludedOrigins: [], perOriginLimit: 1000, inFlightByOrigin: {} };
    let claimed = 0;
    const fig = await timed(BACKLOG / 100, async () => {
      claimed += (await claimDue(ctx.db, claim)).length;
    });
    f['notification claim (100 of a 1,000 backlog)'] = fig;
    console.log(`  [${label}] notification claim: ${fig.value.toFixed(2)} ms (${claimed} claimed)`);
    await c.query(`UPDATE notifications SET status = 'delivered', finished_at = now(), lease_until = NULL WHERE subject_key LIKE 'bench:%' AND status = 'pending'`);

    await c.query(
      `INSERT INTO deposits (${await depositColumns(c)})
       SELECT ${(await depositColumns(c)).split(', ').map((col) =>
         col === 'invoice_id' ? `'exp-' || g || '-' || $2::text` : col === 'token' ? `md5('exp' || g || $2::text) || md5(g::text || $2::text)` : col === 'expires_at' ? `now() - interval '1 minute'` : col === 'merchant_id' ? '$1::int' : col).join(', ')}
       FROM (SELECT * FROM deposits WHERE status = 'PENDING' ORDER BY id LIMIT 1) d, generate_series(1, $3) g`,
      [mid, randomBytes(4).toString('hex'), BACKLOG],
    );
    let expired = 0;
    const sweep = await timed(BACKLOG / 100, async () => {
      expired += await expireDueDeposits(ctx);
    });
    f['expiry sweep (batch of 100)'] = sweep;
    console.log(`  [${label}] expiry sweep: ${sweep.value.toFixed(2)} ms per batch (${expired} expired)`);

    await c.query(
      `INSERT INTO signed_requests (merchant_id, request_hash, expires_at, status)
       SELECT $1, md5(random()::text) || g, now() - interval '1 minute', 200 FROM generate_series(1, 10000) g`,
      [mid],
    );
    let purged = 0;
    const purge = await timed(1, async () => {
      purged = await purgeExpiredRequests(ctx.db, new Date());
    });
    f['replay purge (10,000 expired)'] = purge;
    console.log(`  [${label}] replay purge: ${purge.value.toFixed(2)} ms (${purged} purged)`);
  } finally {
    await ctx.db.close();
    await c.end();
  }
  return f;
}

async function vacuum(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('VACUUM ANALYZE');
  await c.end();
}

async function depositColumns(c: pg.Client): Promise<string> {
  const { rows } = await c.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_name = 'deposits' AND table_schema = current_schema()
       AND is_generated = 'NEVER' AND column_name <> 'id' ORDER BY ordinal_position`,
  );
  return rows.map((r) => r.column_name).join(', ');
}

async function sizes(dbUrl: string): Promise<{ rows: { table: string; rows: number; table_mb: number; index_mb: number }[]; deposits: number; total_mb: number }> {
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ table: string; rows: string; table_mb: string; index_mb: string }>(
      `SELECT c.relname AS table, c.reltuples::bigint AS rows,
              round(pg_table_size(c.oid) / 1048576.0) AS table_mb, round(pg_indexes_size(c.oid) / 1048576.0) AS index_mb
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind = 'r' AND n.nspname = current_schema() AND pg_total_relation_size(c.oid) > 1048576
       ORDER BY pg_total_relation_size(c.oid) DESC`,
    );
    const deposits = Number((await c.query(`SELECT count(*) FROM deposits`)).rows[0].count);
    const total = Number((await c.query(`SELECT pg_database_size(current_database()) AS b`)).rows[0].b);
    return {
      rows: rows.map((r) => ({ table: r.table, rows: Number(r.rows), table_mb: Number(r.table_mb), index_mb: Number(r.index_mb) })),
      deposits,
      total_mb: Math.round(total / 1048576),
    };
  } finally {
    await c.end();
  }
}

export async function benchScale(): Promise<Record<string, unknown>> {
  const db = await createScratchDatabase(postgresUrl() ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'caja_scale');
  const masterKey = randomBytes(32).toString('base64');
  const hook = await receiver();
  const w: World = { dbUrl: db.url, masterKey, creds: [], panels: [] };
  try {
    const { url, child } = await startServer(db.url, { CAJA_MASTER_KEY: masterKey, CAJA_PROCESSES: '1' });
    try {
      for (let i = 1; i <= 20; i++) {
        const r = await admin(url, 'POST', '/admin/merchants', { name: `Scale ${i}`, notification_url: `http://127.0.0.1:${RECEIVER_PORT}/hook/${i}` }, ADMIN_TOKEN);
        await ok(r, 'merchant');
        w.creds.push(r.body);
      }
      const templates = await makeTemplates(url, w.creds[0]!, w.creds.map((m) => m.merchant_id));
      // Until the templates' notifications are delivered: the copies are, with their attempt.
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      for (let i = 0; i < 100 && Number((await c.query(`SELECT count(*) FROM notifications WHERE status = 'pending'`)).rows[0].count) > 0; i++) {
        await new Promise((r) => setTimeout(r, 200));
      }
      await c.end();
      (w as World & { templates?: Templates }).templates = templates;
    } finally {
      await stopServer(child);
    }
    const templates = (w as World & { templates?: Templates }).templates!;
    // The small database: full pages for every merchant, so that both states answer the same
    // amount of data and only the size of the tables differs.
    await grow(db.url, templates, BASE, (s) => console.log(`  ${s}`));
    await vacuum(db.url);
    console.log(`--- empty (${BASE.toLocaleString('en')} deposits) ---`);
    const empty = await measure(w, 'empty');
    const emptySizes = await sizes(db.url);
    console.log(`--- growing to ${N.toLocaleString('en')} deposits ---`);
    const started = Date.now();
    await grow(db.url, templates, N - BASE, (s) => console.log(`  ${s}`));
    await vacuum(db.url);
    const growSeconds = Math.round((Date.now() - started) / 1000);
    console.log(`  grown and vacuumed in ${growSeconds} s`);
    console.log(`--- ${N.toLocaleString('en')} ---`);
    const full = await measure(w, String(N));
    const fullSizes = await sizes(db.url);

    console.log(`\n| path | empty | ${N.toLocaleString('en')} | cost ratio |\n|---|---:|---:|---:|`);
    const table: Record<string, { empty: Figure; full: Figure; ratio: number }> = {};
    for (const name of Object.keys(empty)) {
      const a = empty[name]!;
      const b = full[name]!;
      // Cost: time per request; for rates, the inverse.
      const ratio = a.unit === 'ms' ? b.value / a.value : a.value / b.value;
      table[name] = { empty: a, full: b, ratio: Math.round(ratio * 100) / 100 };
      const show = (x: Figure) => `${x.value.toFixed(x.unit === 'ms' ? 2 : 0)} ${x.unit}`;
      console.log(`| ${name} | ${show(a)} | ${show(b)} | ${ratio.toFixed(2)} × ${ratio <= 1.25 ? '' : '(over 1.25)'} |`);
    }
    console.log(`\n| table | rows | table MB | index MB |\n|---|---:|---:|---:|`);
    for (const r of fullSizes.rows) console.log(`| ${r.table} | ${r.rows.toLocaleString('en')} | ${r.table_mb} | ${r.index_mb} |`);
    const perDeposit = Math.round(((fullSizes.total_mb - emptySizes.total_mb) * 1048576) / (fullSizes.deposits - emptySizes.deposits));
    console.log(`\ndatabase ${fullSizes.total_mb} MB for ${fullSizes.deposits.toLocaleString('en')} deposits: ${perDeposit} bytes per deposit (grown in ${growSeconds} s)`);
    return { deposits: N, table, sizes: fullSizes, bytesPerDeposit: perDeposit, growSeconds };
  } finally {
    hook.close();
    if (process.env.SCALE_KEEP === '1') console.log(`kept ${db.url}`);
    else await db.drop();
  }
}
