// `npm run bench -- scale-measure`: a kept pair measured without growing anything — the empty
// state (scale_empty) and its grown copy (scale_5m), built by `npm run bench -- scale-build`.
//
// On a shared machine single figures move 2× from one minute to the next, so the two states are
// never measured minutes apart: both run at once, each behind its own server of the same compiled
// build (one process each), and each path is measured on the empty one, then the grown one, then
// again (SCALE_ROUNDS rounds of SCALE_SECONDS each, the order turned every other round: A B, B A, A B). The ratio is of the medians; the
// spread of the per-round ratios says how much to trust it.
//
// The empty state is measured on a fresh copy of it (`<name>_run`, dropped at the end), so the
// deposits and backlogs measuring adds never accumulate in the kept one; the grown one takes
// them (a few thousand rows per run, nothing against 5 M). A server of newer code runs its
// migrations at start-up on both (SCALE_STARTUP_SECONDS bounds the wait, 30 minutes).
//
// HTTP paths: autocannon, SCALE_CONNECTIONS (16) connections, 32 for the panel's pages (32
// signed-in users of the largest merchant). Then, both servers stopped (their workers would
// compete), the workers' own functions on a backlog seeded the same way on both: the
// notification claim, the expiry sweep, the replay purge. Last, once per database, the full
// ledger check (SCALE_FULL_CHECK=0 skips it: minutes at 5 M). SCALE_PATHS=events,panel measures
// only the paths whose names contain one of those words.
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';
import { loadConfig } from '../src/config/config.ts';
import { openContext } from '../src/server/runtime.ts';
import type { AppContext } from '../src/config/context.ts';
import { claimDue } from '../src/notifications/store.ts';
import { expireDueDeposits } from '../src/deposits/worker.ts';
import { purgeExpiredRequests } from '../src/auth/replay.ts';
import { hmac } from '../test/helpers/clients.ts';
import { PanelClient } from '../test/panel/helpers.ts';
import { ADMIN_TOKEN, startServer, stopServer } from './deposits.ts';
import { adminQuery, databaseName, databaseUrl, fullLedgerCheck, ledgerCheckpoint, readMeta, receiver, type ScaleMeta } from './scale.ts';

type Autocannon = (opts: Record<string, unknown>) => Promise<{ requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; timeouts: number }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const SECONDS = Number(process.env.SCALE_SECONDS ?? 4);
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.SCALE_CONNECTIONS ?? 16);
const STARTUP_SECONDS = Number(process.env.SCALE_STARTUP_SECONDS ?? 1800);
const PANEL_USERS = 32;
const BACKLOG = 1000;

interface Figure {
  /** Requests per second (HTTP) or milliseconds per call (in-process). */
  value: number;
  unit: 'req/s' | 'ms';
}

/** One database as measured: its server, a client of its own, what its paths ask for. */
interface Side {
  label: 'empty' | 'grown';
  dbUrl: string;
  meta: ScaleMeta;
  api: string;
  child: Awaited<ReturnType<typeof startServer>>['child'] | null;
  c: pg.Client;
  deposits: number;
  ids: number[];
  middle: Record<'largest' | 'smallest', number>;
  middleTransfer: string;
  cookies: string[];
  sample: { id: number; invoice_id: string; payer_email: string }[];
  ctx?: AppContext;
}

interface Path {
  name: string;
  run: (s: Side) => Promise<Figure>;
}

function signed(login: string, secret: string, body: string): Record<string, string> {
  const xDate = new Date().toISOString();
  return { 'x-date': xDate, 'x-login': login, authorization: `SVC ${hmac(secret, xDate + login + body)}` };
}

const roundRobin = <T>(xs: T[]) => {
  let i = 0;
  return () => xs[i++ % xs.length]!;
};

async function http(url: string, requests: Record<string, unknown>[], connections = CONNECTIONS): Promise<Figure> {
  const r = await autocannon({ url, connections, duration: SECONDS, requests });
  if (r.non2xx || r.errors || r.timeouts) console.warn(`  ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  return { value: Math.round(r.requests.average), unit: 'req/s' };
}

const signedGet = (login: string, secret: string, paths: () => string) => [{
  method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: paths(), headers: signed(login, secret, '') }),
}];

async function timed(times: number, f: () => Promise<unknown>): Promise<Figure> {
  const t = process.hrtime.bigint();
  for (let i = 0; i < times; i++) await f();
  return { value: Number(process.hrtime.bigint() - t) / 1e6 / times, unit: 'ms' };
}

const big = (s: Side) => s.meta.creds[0]!;
const small = (s: Side) => s.meta.creds[s.meta.creds.length - 1]!;
const mid = (s: Side) => s.meta.creds[9]!;

/** The largest merchant's newest event. */
async function lastEvent(s: Side): Promise<string> {
  return (await s.c.query<{ id: string }>(`SELECT max(id)::text AS id FROM events WHERE merchant_id = $1`, [big(s).merchant_id])).rows[0]!.id;
}

/** What each path asks for on this database: sampled once, the same way on both. */
async function prepare(s: Side): Promise<void> {
  const c = s.c;
  s.deposits = Number((await c.query(`SELECT count(*) AS n FROM deposits`)).rows[0].n);
  // Deposits spread over the whole table (at 5 M, most of them long out of the cache).
  s.ids = (await c.query<{ id: number }>(`SELECT id FROM deposits WHERE merchant_id = $1 ORDER BY hashint4(id) LIMIT 5000`, [mid(s).merchant_id])).rows.map((r) => r.id);
  for (const [who, m] of [['largest', big(s)], ['smallest', small(s)]] as const) {
    s.middle[who] = (await c.query<{ id: number }>(
      `SELECT id FROM deposits WHERE merchant_id = $1 ORDER BY id OFFSET (SELECT count(*) / 2 FROM deposits WHERE merchant_id = $1) LIMIT 1`, [m.merchant_id],
    )).rows[0]?.id ?? 1;
  }
  s.middleTransfer = (await c.query<{ id: string }>(
    `SELECT id FROM ledger_transfers WHERE merchant_id = $1 ORDER BY id OFFSET (SELECT count(*) / 2 FROM ledger_transfers WHERE merchant_id = $1) LIMIT 1`, [big(s).merchant_id],
  )).rows[0]?.id ?? '1';
  s.sample = (await c.query<{ id: number; invoice_id: string; payer_email: string }>(
    `SELECT id, invoice_id, payer_email FROM deposits WHERE merchant_id = $1 ORDER BY hashint4(id) LIMIT 500`, [big(s).merchant_id],
  )).rows;
  // The panel: one signed-in user per connection, all of the largest merchant.
  s.cookies = [];
  for (let i = 0; i < PANEL_USERS; i++) {
    const p = new PanelClient(s.api);
    const r = await p.signIn(big(s).panel.email, big(s).panel.password);
    if (r.status !== 200) throw new Error(`panel sign-in on ${s.label}: ${r.status}`);
    s.cookies.push(p.cookieHeader);
  }
}

/**
 * Until the server has done the work that waited for it: a kept database's pending deposits
 * expire while no server runs (the grown one's last two hours of them, thousands), and a server
 * that starts expires them and delivers their notifications at once. Measured meanwhile, the
 * grown side paid for that backlog (the event feed's tail measured 5.9 × in a first run, 1.0 ×
 * once drained). At most SCALE_SETTLE_SECONDS (300).
 */
async function settle(s: Side, log: (m: string) => void): Promise<void> {
  const limit = Date.now() + Number(process.env.SCALE_SETTLE_SECONDS ?? 300) * 1000;
  for (;;) {
    const { rows } = await s.c.query<{ due: string; pending: string }>(
      `SELECT (SELECT count(*) FROM deposits WHERE status = 'PENDING' AND expires_at < now()) AS due,
              (SELECT count(*) FROM notifications WHERE status = 'pending') AS pending`,
    );
    const { due, pending } = rows[0]!;
    if ((due === '0' && pending === '0') || Date.now() > limit) {
      log(`${s.label}: ${due} deposits past their expiry, ${pending} notifications pending`);
      return;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const BR_PAYER = { document: '52998224725', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };

function panelGet(s: Side, paths: () => string) {
  const cookie = roundRobin(s.cookies);
  return [{ method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: paths(), headers: { cookie: cookie() } }) }];
}

/** The paths served over HTTP, in the order they are measured. */
function httpPaths(): Path[] {
  let n = 0;
  const tag = randomBytes(3).toString('hex');
  const paths: Path[] = [
    {
      name: 'POST /v3/deposits (signed, HOSTED)',
      run: (s) => http(s.api, [{
        method: 'POST', path: '/v3/deposits',
        setupRequest: (req: Record<string, unknown>) => {
          const body = JSON.stringify({ country: 'MX', currency: 'MXN', amount: '250.00', invoice_id: `scale-${tag}-${++n}`, payer: { ...BR_PAYER, document: 'GODE561231GR8', id: `u-${n % 5000}` } });
          return { ...req, body, headers: { ...signed(mid(s).deposits.login, mid(s).deposits.secret_key, body), 'content-type': 'application/json' } };
        },
      }]),
    },
    { name: 'GET /v3/deposits/{id} (5,000 spread over the table)', run: (s) => http(s.api, signedGet(mid(s).deposits.login, mid(s).deposits.secret_key, roundRobin(s.ids.map((id) => `/v3/deposits/${id}`)))) },
  ];
  for (const [who, m] of [['largest', big], ['smallest', small]] as const) {
    paths.push(
      { name: `GET /v3/deposits first page (${who} merchant)`, run: (s) => http(s.api, signedGet(m(s).deposits.login, m(s).deposits.secret_key, () => '/v3/deposits?limit=20')) },
      { name: `GET /v3/deposits mid-history page (${who} merchant)`, run: (s) => http(s.api, signedGet(m(s).deposits.login, m(s).deposits.secret_key, () => `/v3/deposits?limit=20&before=${s.middle[who]}`)) },
    );
  }
  // A status filter on the largest merchant's list: without (merchant_id, status, id), migration
  // 039, the page walked the primary key past the other merchants' rows (161 ms at 5 M).
  // PENDING is rare (the empty state's largest merchant has 7: a page of 7 rows against 20 at 5 M);
  // CANCELLED fills the page on both sides, so it is the like-for-like one.
  for (const status of ['PENDING', 'CANCELLED']) {
    paths.push({ name: `GET /v3/deposits first page by status ${status} (largest merchant)`, run: (s) => http(s.api, signedGet(big(s).deposits.login, big(s).deposits.secret_key, () => `/v3/deposits?limit=20&status=${status}`)) });
  }
  paths.push(
    { name: 'GET /v3/balance/transactions', run: (s) => http(s.api, signedGet(big(s).deposits.login, big(s).deposits.secret_key, () => '/v3/balance/transactions?limit=25')) },
    { name: 'GET /v3/balance/transactions mid-history', run: (s) => http(s.api, signedGet(big(s).deposits.login, big(s).deposits.secret_key, () => `/v3/balance/transactions?limit=25&starting_after=${s.middleTransfer}`)) },
    { name: 'GET /v3/events (first page)', run: (s) => http(s.api, signedGet(big(s).deposits.login, big(s).deposits.secret_key, () => '/v3/events?limit=100')) },
    // The cursor is read again right before each run: a poller's tail is what arrived since its last
    // poll. Read once at the start, the grown side's tail filled up with the events of its pending
    // deposits expiring during the run (its last two hours are pending) and measured a page of them
    // against the empty side's empty page (1.41-1.60 × in full runs, 0.90 alone).
    {
      name: 'GET /v3/events (tail)',
      run: async (s) => {
        const after = await lastEvent(s);
        return http(s.api, signedGet(big(s).deposits.login, big(s).deposits.secret_key, () => `/v3/events?limit=100&after=${after}`));
      },
    },
    { name: 'panel home (32 users)', run: (s) => http(s.api, panelGet(s, () => '/panel'), PANEL_USERS) },
    { name: 'panel search by invoice id (32 users)', run: (s) => http(s.api, panelGet(s, roundRobin(s.sample.map((d) => `/panel/deposits?q=${encodeURIComponent(d.invoice_id)}`))), PANEL_USERS) },
    // Upper-cased: any case matches.
    { name: 'panel search by payer e-mail (32 users)', run: (s) => http(s.api, panelGet(s, roundRobin(s.sample.map((d) => `/panel/deposits?q=${encodeURIComponent(d.payer_email.toUpperCase())}`))), PANEL_USERS) },
    { name: 'panel deposit list (32 users)', run: (s) => http(s.api, panelGet(s, () => '/panel/deposits'), PANEL_USERS) },
    { name: 'panel deposit page (32 users)', run: (s) => http(s.api, panelGet(s, roundRobin(s.sample.map((d) => `/panel/deposits/${d.id}`))), PANEL_USERS) },
    { name: 'GET /metrics (4 connections)', run: (s) => http(s.api, [{ method: 'GET', path: '/metrics', headers: bearer }], 4) },
    { name: 'GET /admin/ledger/check (incremental, 1 connection)', run: (s) => http(s.api, [{ method: 'GET', path: '/admin/ledger/check', headers: bearer }], 1) },
  );
  return paths;
}

/** The workers' statements, in-process with the servers stopped, each round on a fresh backlog. */
function workerPaths(): Path[] {
  return [
    {
      name: 'notification claim (100 of a 1,000 backlog)',
      run: async (s) => {
        const m = mid(s).merchant_id;
        // Their own event: not one of a template's.
        await s.c.query(
          `WITH e AS (INSERT INTO events (merchant_id, type, subject_type, subject_id, data) VALUES ($1, 'bench.claim', 'deposit', 0, '{}') RETURNING id)
           INSERT INTO notifications (event_id, event_type, merchant_id, subject_key, kind, url, content_type, body, signing_set)
           SELECT e.id, 'bench.claim', $1, 'bench:' || g, n.kind, n.url, n.content_type, n.body, n.signing_set
           FROM e, (SELECT * FROM notifications ORDER BY id DESC LIMIT 1) n, generate_series(1, $2) g`,
          [m, BACKLOG],
        );
        const claim = { limit: 100, leaseSeconds: 60, token: 'bench', excludedOrigins: [], perOriginLimit: 1000, inFlightByOrigin: {} };
        const fig = await timed(BACKLOG / 100, () => claimDue(s.ctx!.db, claim));
        await s.c.query(`UPDATE notifications SET status = 'delivered', finished_at = now(), lease_until = NULL WHERE subject_key LIKE 'bench:%' AND status = 'pending'`);
        return fig;
      },
    },
    {
      name: 'expiry sweep (batch of 100 of 1,000 expired)',
      run: async (s) => {
        const cols = await depositColumns(s.c);
        const salt = randomBytes(4).toString('hex');
        await s.c.query(
          `INSERT INTO deposits (${cols.join(', ')})
           SELECT ${cols.map((col) =>
             col === 'invoice_id' ? `'exp-' || g || '-' || $2::text` : col === 'token' ? `md5('exp' || g || $2::text) || md5(g::text || $2::text)` : col === 'expires_at' ? `now() - interval '1 minute'` : col === 'merchant_id' ? '$1::int' : col).join(', ')}
           FROM (SELECT * FROM deposits WHERE status = 'PENDING' AND invoice_id NOT LIKE 'exp-%' ORDER BY id LIMIT 1) d, generate_series(1, $3) g`,
          [mid(s).merchant_id, salt, BACKLOG],
        );
        return timed(BACKLOG / 100, () => expireDueDeposits(s.ctx!));
      },
    },
    {
      name: 'replay purge (10,000 expired)',
      run: async (s) => {
        await s.c.query(
          `INSERT INTO signed_requests (merchant_id, request_hash, expires_at, status)
           SELECT $1, md5(random()::text) || g, now() - interval '1 minute', 200 FROM generate_series(1, 10000) g`,
          [mid(s).merchant_id],
        );
        return timed(1, () => purgeExpiredRequests(s.ctx!.db, new Date()));
      },
    },
  ];
}

async function depositColumns(c: pg.Client): Promise<string[]> {
  const { rows } = await c.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_name = 'deposits' AND table_schema = current_schema()
       AND is_generated = 'NEVER' AND column_name <> 'id' ORDER BY ordinal_position`,
  );
  return rows.map((r) => r.column_name);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
/** Cost: time per call; for rates, the inverse. */
const cost = (f: Figure) => (f.unit === 'ms' ? f.value : 1 / f.value);

interface Row {
  name: string;
  unit: Figure['unit'];
  empty: number[];
  grown: number[];
}

/** SCALE_PATHS: measure only the paths whose names contain one of these (comma-separated). */
const ONLY = process.env.SCALE_PATHS?.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);

/** Each path, alternately on the two databases, ROUNDS times. */
async function alternate(paths: Path[], sides: [Side, Side], rows: Row[]): Promise<void> {
  for (const p of paths) {
    if (ONLY && !ONLY.some((o) => p.name.toLowerCase().includes(o))) continue;
    const row: Row = { name: p.name, unit: 'req/s', empty: [], grown: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // A B B A A B …: neither database always goes first (the one after a switch may pay for it).
      for (const s of r % 2 ? [sides[1], sides[0]] : sides) {
        const f = await p.run(s);
        row.unit = f.unit;
        row[s.label].push(f.value);
      }
    }
    rows.push(row);
    const show = (xs: number[]) => xs.map((x) => x.toFixed(row.unit === 'ms' ? 2 : 0)).join(' ');
    console.log(`  ${p.name}: empty ${show(row.empty)} | grown ${show(row.grown)} ${row.unit}`);
  }
}

async function sizes(c: pg.Client): Promise<{ tables: { table: string; partitions: number; rows: number; table_mb: number; index_mb: number }[]; total_mb: number }> {
  const { rows } = await c.query<{ table: string; partitions: string; rows: string; table_mb: string; index_mb: string }>(
    // A partitioned table (relkind 'p') holds nothing itself: its figures are its partitions' sums.
    `WITH leaf AS (
       SELECT c.oid AS top, c.relname, c.oid AS relid FROM pg_class c
       WHERE c.relkind = 'r' AND NOT c.relispartition AND c.relnamespace = current_schema()::regnamespace
       UNION ALL
       SELECT c.oid, c.relname, t.relid FROM pg_class c CROSS JOIN LATERAL pg_partition_tree(c.oid) t
       WHERE c.relkind = 'p' AND NOT c.relispartition AND c.relnamespace = current_schema()::regnamespace AND t.isleaf)
     SELECT l.relname AS table, count(*) AS partitions, sum(greatest(x.reltuples, 0))::bigint AS rows,
            round(sum(pg_table_size(l.relid)) / 1048576.0) AS table_mb, round(sum(pg_indexes_size(l.relid)) / 1048576.0) AS index_mb
     FROM leaf l JOIN pg_class x ON x.oid = l.relid
     GROUP BY l.top, l.relname
     HAVING sum(pg_total_relation_size(l.relid)) > 1048576
     ORDER BY sum(pg_total_relation_size(l.relid)) DESC`,
  );
  const total = Number((await c.query(`SELECT pg_database_size(current_database()) AS b`)).rows[0].b);
  return {
    tables: rows.map((r) => ({ table: r.table, partitions: Number(r.partitions), rows: Number(r.rows), table_mb: Number(r.table_mb), index_mb: Number(r.index_mb) })),
    total_mb: Math.round(total / 1048576),
  };
}

function workerContext(s: Side): Promise<AppContext> {
  return openContext(loadConfig({ ...process.env, DATABASE_URL: s.dbUrl, CAJA_ENV: 'staging', CAJA_MASTER_KEY: s.meta.masterKey, CAJA_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'warn' }));
}

export async function measurePair(emptyUrl: string, grownUrl: string): Promise<Record<string, unknown>> {
  const log = (s: string) => console.log(`  ${new Date().toISOString().slice(11, 19)} ${s}`);
  const meta = await readMeta(emptyUrl);
  const grownMeta = await readMeta(grownUrl);
  if (meta.masterKey !== grownMeta.masterKey) throw new Error(`${databaseName(grownUrl)} is not a copy of ${databaseName(emptyUrl)} (their scale_bench rows differ)`);
  // A fresh copy of the empty state, so that the kept one stays as built.
  const runName = `${databaseName(emptyUrl)}_run`;
  await adminQuery(`DROP DATABASE IF EXISTS ${runName} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${runName} TEMPLATE ${databaseName(emptyUrl)}`);
  const runUrl = databaseUrl(runName);
  const hook: Server = await receiver(meta.receiverPort);
  const newSide = (label: Side['label'], dbUrl: string): Side => ({
    label, dbUrl, meta, api: '', child: null, c: new pg.Client({ connectionString: dbUrl }), deposits: 0, ids: [],
    middle: { largest: 1, smallest: 1 }, middleTransfer: '1', cookies: [], sample: [],
  });
  const sides: [Side, Side] = [newSide('empty', runUrl), newSide('grown', grownUrl)];
  const rows: Row[] = [];
  const full: Record<string, number> = {};
  let grownSizes: Awaited<ReturnType<typeof sizes>> | null = null;
  let emptySizes: Awaited<ReturnType<typeof sizes>> | null = null;
  try {
    // The incremental ledger check starts from the last checkpoint: brought up to date here,
    // in-process and without the service's statement timeout, so that it is measured checking
    // what changed since, not the millions of rows a growth wrote after the copy's checkpoint.
    for (const s of sides) {
      const ms = await ledgerCheckpoint(s.dbUrl, meta.masterKey);
      log(`ledger checkpoint of ${databaseName(s.dbUrl)} brought up to date in ${ms} ms`);
    }
    for (const s of sides) {
      log(`starting a server on ${databaseName(s.dbUrl)} (it runs any new migration first)`);
      const started = await startServer(s.dbUrl, { CAJA_MASTER_KEY: meta.masterKey, CAJA_PROCESSES: '1' }, { waitSeconds: STARTUP_SECONDS });
      s.api = started.url;
      s.child = started.child;
      await s.c.connect();
      await settle(s, log);
      await prepare(s);
      log(`${s.label}: ${s.deposits.toLocaleString('en')} deposits`);
    }
    emptySizes = await sizes(sides[0].c);
    grownSizes = await sizes(sides[1].c);
    log(`HTTP paths, ${ROUNDS} rounds of ${SECONDS} s on each database, alternately`);
    await alternate(httpPaths(), sides, rows);
    for (const s of sides) {
      await stopServer(s.child!);
      s.child = null;
      s.ctx = await workerContext(s);
    }
    log('the workers\' functions, servers stopped');
    await alternate(workerPaths(), sides, rows);
    for (const s of sides) {
      await s.ctx!.db.close();
      s.ctx = undefined;
    }
    if (process.env.SCALE_FULL_CHECK !== '0') {
      for (const s of sides) {
        full[s.label] = await fullLedgerCheck(s.dbUrl, meta.masterKey);
        log(`full ledger check on ${s.label}: ${full[s.label]} ms`);
      }
    }
  } finally {
    for (const s of sides) {
      if (s.child) await stopServer(s.child);
      if (s.ctx) await s.ctx.db.close();
      await s.c.end().catch(() => undefined);
    }
    hook.close();
    await adminQuery(`DROP DATABASE IF EXISTS ${runName} WITH (FORCE)`);
  }

  const [e, g] = sides;
  console.log(`\n${ROUNDS} rounds, alternately; medians; the cost ratio is the grown median's cost over the empty one's (target ≤ 1.25)`);
  console.log(`\n| path | empty (${e.deposits.toLocaleString('en')}) | ${g.deposits.toLocaleString('en')} | cost ratio | per-round ratios |\n|---|---:|---:|---:|---|`);
  const table: Record<string, unknown> = {};
  const show = (x: number, unit: Figure['unit']) => `${x.toLocaleString('en', { maximumFractionDigits: unit === 'ms' ? 2 : 0 })} ${unit}`;
  for (const r of rows) {
    const a = median(r.empty);
    const b = median(r.grown);
    const ratio = cost({ value: b, unit: r.unit }) / cost({ value: a, unit: r.unit });
    const perRound = r.empty.map((x, i) => cost({ value: r.grown[i]!, unit: r.unit }) / cost({ value: x, unit: r.unit }));
    table[r.name] = { unit: r.unit, empty: r.empty, grown: r.grown, ratio: Math.round(ratio * 100) / 100 };
    console.log(`| ${r.name} | ${show(a, r.unit)} | ${show(b, r.unit)} | ${ratio > 1.25 ? '**' : ''}${ratio.toFixed(2)}${ratio > 1.25 ? '**' : ''} | ${perRound.map((x) => x.toFixed(2)).join(', ')} |`);
  }
  if (full.empty !== undefined) {
    console.log(`| full ledger check (once, in-process, on demand) | ${show(full.empty, 'ms')} | ${show(full.grown!, 'ms')} | ${(full.grown! / full.empty).toFixed(0)} (reads everything) | |`);
  }
  console.log(`\n| table | partitions | rows | table MB | index MB |\n|---|---:|---:|---:|---:|`);
  for (const t of grownSizes!.tables) {
    console.log(`| ${t.table} | ${t.partitions > 1 ? t.partitions : ''} | ${t.rows.toLocaleString('en')} | ${t.table_mb.toLocaleString('en')} | ${t.index_mb.toLocaleString('en')} |`);
  }
  const perDeposit = Math.round(((grownSizes!.total_mb - emptySizes!.total_mb) * 1048576) / (g.deposits - e.deposits));
  console.log(`\n${databaseName(grownUrl)}: ${grownSizes!.total_mb.toLocaleString('en')} MB for ${g.deposits.toLocaleString('en')} deposits, ${perDeposit.toLocaleString('en')} bytes per deposit (${databaseName(emptyUrl)}: ${emptySizes!.total_mb} MB)`);
  return { rounds: ROUNDS, seconds: SECONDS, deposits: { empty: e.deposits, grown: g.deposits }, table, fullCheckMs: full, sizes: grownSizes, bytesPerDeposit: perDeposit };
}
