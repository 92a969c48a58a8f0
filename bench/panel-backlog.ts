// Every panel page that shows figures at PANEL_SMALL (20,000) and PANEL_LARGE (500,000) deposits
// while deposits keep arriving and completing (issue 43: within 1.25 ×). Two databases, one server
// each (the same build, one process, its workers on: the balance fold worker folds the figure and
// balance deltas as in service). Each merchant's deposits are made by SQL with the triggers on, as
// copies of one made through the API spread over the last 30 days, a third completed, each
// completed one with its ledger credit (available and caja's settlement): the figure and balance
// deltas they append are what the API's writes would have left, and the server folds them. Once
// both backlogs are folded and the tables analyzed, each page (PANEL_PAGES: the home, the balance, the deposit list, a
// deposit's page, the methods, the cashouts, the notifications) is measured on one side then the
// other, PANEL_ROUNDS (3) rounds of PANEL_SECONDS (5), the order turned every other round, while
// HOSTED deposits arrive through the API at PANEL_ARRIVALS (200) per second on the server
// measured and sandbox approvals complete pending Pix deposits at a quarter of that (their
// completions append the balance and figure deltas the pages read). The ratio is of the medians.
//   npm run bench -- panel
import { createRequire } from 'node:module';
import pg from 'pg';
import { ADMIN_TOKEN, depositRequests, freshDatabase, startServer, stopServer, v3Headers } from './deposits.ts';
import { PanelClient } from '../test/panel/helpers.ts';

const SMALL = Number(process.env.PANEL_SMALL ?? 20_000);
const LARGE = Number(process.env.PANEL_LARGE ?? 500_000);
const ROUNDS = Number(process.env.PANEL_ROUNDS ?? 3);
const SECONDS = Number(process.env.PANEL_SECONDS ?? 5);
const ARRIVALS = Number(process.env.PANEL_ARRIVALS ?? 200);
const APPROVALS = Math.max(1, Math.round(ARRIVALS / 4));
const USERS = 16;
/** The pages measured, by name; `PANEL_PAGES=home,balance` measures those only. */
const PAGES: Record<string, (s: Side) => string> = {
  home: () => '/panel',
  balance: () => '/panel/balance',
  deposits: () => '/panel/deposits',
  deposit: (s) => `/panel/deposits/${s.newest}`,
  methods: () => '/panel/methods',
  cashouts: () => '/panel/cashouts',
  notifications: () => '/panel/notifications',
};
const PAGE_NAMES = (process.env.PANEL_PAGES ?? Object.keys(PAGES).join(',')).split(',').filter((p) => p in PAGES);

interface AutocannonResult {
  requests: { average: number };
  latency: { p99: number };
  errors: number;
  non2xx: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;
const CHUNK = 50_000;

interface Side {
  label: string;
  deposits: number;
  url: string;
  db: string;
  child: Awaited<ReturnType<typeof startServer>>['child'];
  login: string;
  secret: string;
  cookies: string[];
  /** The newest deposit made by SQL (a deposit's page). */
  newest: number;
  /** Pending Pix deposits the approvals complete, in turn. */
  pending: number[];
  approved: number;
  /** Page name → its rate per round. */
  rps: Map<string, number[]>;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** Copies the merchant's one deposit `n` times by SQL, with new tokens, invoice ids, days and statuses. */
async function generate(s: Side, merchantId: number, n: number, log: (m: string) => void): Promise<void> {
  const cols = (await query<{ c: string }>(s.db,
    `SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'deposits' AND table_schema = current_schema()
     AND column_name NOT IN ('id', 'token', 'invoice_id', 'status', 'created_at', 'updated_at') AND is_generated = 'NEVER' ORDER BY ordinal_position`,
  )).map((r) => `"${r.c}"`);
  const started = Date.now();
  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK);
    // Each completed copy is credited as a completion is (a transfer of its USD amount from caja's
    // settlement to the merchant's available), through the ledger's own triggers.
    await query(s.db,
      `WITH d AS (
         INSERT INTO deposits (${cols.join(', ')}, token, invoice_id, status, created_at, updated_at)
         SELECT ${cols.map((c) => `d.${c}`).join(', ')}, md5('gen' || g), 'gen-' || g,
                CASE WHEN g % 3 = 0 THEN 'COMPLETED' ELSE 'CANCELLED' END, t, t
         FROM (SELECT * FROM deposits WHERE merchant_id = $1 ORDER BY id LIMIT 1) d,
              generate_series($2::int, $3::int) g,
              LATERAL (SELECT now() - (g % 30) * interval '1 day' - (g % 3600) * interval '1 second' AS t) w
         RETURNING id, merchant_id, usd_amount, created_at, status
       ), t AS (
         INSERT INTO ledger_transfers (merchant_id, kind, subject_type, subject_id, created_at)
         SELECT merchant_id, 'deposit.credit', 'deposit', id, created_at FROM d WHERE status = 'COMPLETED' ORDER BY id
         RETURNING id, subject_id
       )
       INSERT INTO ledger_entries (transfer_id, account_id, amount)
       SELECT t.id, e.account_id, e.sign * d.usd_amount
       FROM t JOIN d ON d.id = t.subject_id
       CROSS JOIN (VALUES (ledger_account_id($1, 'USD', 'available', 0), 1), (ledger_account_id(0, 'USD', 'settlement', 0), -1)) e(account_id, sign)`,
      [merchantId, from + 1, to],
    );
  }
  s.newest = (await query<{ id: number }>(s.db, `SELECT max(id) AS id FROM deposits WHERE invoice_id LIKE 'gen-%'`))[0]!.id;
  log(`${s.label}: ${n} deposits made by SQL in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** `n` pending copies of the merchant's Pix deposit `template` (made through the API), for the approvals. */
async function seedPending(s: Side, template: number, n: number): Promise<void> {
  const cols = (await query<{ c: string }>(s.db,
    `SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'deposits' AND table_schema = current_schema()
     AND column_name NOT IN ('id', 'token', 'invoice_id', 'connector_reference', 'expires_at') AND is_generated = 'NEVER' ORDER BY ordinal_position`,
  )).map((r) => `"${r.c}"`);
  const rows = await query<{ id: number }>(s.db,
    `INSERT INTO deposits (${cols.join(', ')}, token, invoice_id, connector_reference, expires_at)
     SELECT ${cols.map((c) => `d.${c}`).join(', ')}, md5('pend' || g), 'pend-' || g,
            CASE WHEN d.connector_reference IS NULL THEN NULL ELSE d.connector_reference || '-' || g END, now() + interval '2 hours'
     FROM deposits d, generate_series(1, $2::int) g WHERE d.id = $1 RETURNING id`,
    [template, n],
  );
  s.pending = rows.map((r) => r.id);
}

/** Until the server's fold worker has folded what the generation appended. */
async function folded(s: Side, log: (m: string) => void): Promise<void> {
  const started = Date.now();
  for (;;) {
    const [r] = await query<{ n: number; b: number }>(s.db, 'SELECT (SELECT count(*)::int FROM panel_day_deltas) AS n, (SELECT count(*)::int FROM ledger_balance_deltas) AS b');
    if ((r!.n < 5_000 && r!.b < 5_000) || Date.now() - started > 600_000) {
      log(`${s.label}: backlog folded to ${r!.n} figure deltas and ${r!.b} balance deltas in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    }
    await new Promise((res) => setTimeout(res, 500));
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function measure(s: Side, page: string, round: number): Promise<number> {
  // Deposits arriving through the API while the page is read, and pending ones completing.
  const arrivals = autocannon({
    url: s.url, connections: 8, overallRate: ARRIVALS, duration: SECONDS + 1,
    requests: depositRequests(s.login, s.secret, 'hosted', `arrive-${page}-${round}`),
  });
  const approvals = autocannon({
    url: s.url, connections: 4, overallRate: APPROVALS, duration: SECONDS + 1,
    requests: [{
      method: 'POST',
      setupRequest: (req: Record<string, unknown>) => {
        const id = s.pending[s.approved++ % s.pending.length]!;
        return { ...req, path: `/v3/sandbox/deposits/${id}/approve`, headers: v3Headers(s.login, s.secret, '') };
      },
    }],
  });
  let at = 0;
  const path = PAGES[page]!(s);
  const r = await autocannon({
    url: s.url, connections: USERS, duration: SECONDS,
    requests: [{ method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path, headers: { cookie: s.cookies[at++ % s.cookies.length]! } }) }],
  });
  const [a, c] = [await arrivals, await approvals];
  if (r.non2xx || r.errors) throw new Error(`${s.label}: ${path} answered ${r.non2xx} non-2xx, ${r.errors} errors`);
  const rps = r.requests.average;
  console.log(`  round ${round + 1} ${s.label}: ${page} ${Math.round(rps)}/s (p99 ${r.latency.p99} ms), deposits arriving ${Math.round(a.requests.average)}/s (non-2xx ${a.non2xx}), completing ${Math.round(c.requests.average)}/s (non-2xx ${c.non2xx})`);
  return rps;
}

export async function benchPanel(): Promise<Record<string, unknown>> {
  const log = (m: string) => console.log(`  ${m}`);
  const dbs = [await freshDatabase(), await freshDatabase()];
  const sides: Side[] = [];
  try {
    for (const [i, deposits] of [SMALL, LARGE].entries()) {
      const { url, child } = await startServer(dbs[i]!.url, { CAJA_PROCESSES: '1' });
      const side: Side = {
        label: `${deposits.toLocaleString('en')} deposits`, deposits, url, db: dbs[i]!.url, child, login: '', secret: '', cookies: [],
        newest: 0, pending: [], approved: 0, rps: new Map(PAGE_NAMES.map((p) => [p, []])),
      };
      sides.push(side);
      const res = await fetch(`${url}/admin/merchants`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Panel bench' }) });
      const m = (await res.json()) as { merchant_id: number; deposits: { login: string; secret_key: string }; panel: { email: string; password: string } };
      side.login = m.deposits.login;
      side.secret = m.deposits.secret_key;
      const first = await autocannon({ url, connections: 1, amount: 1, requests: depositRequests(side.login, side.secret, 'hosted', 'template') });
      if (first.non2xx) throw new Error('the template deposit was refused');
      await generate(side, m.merchant_id, deposits - 1, log);
      const pix = await autocannon({ url, connections: 1, amount: 1, requests: depositRequests(side.login, side.secret, 'pix', 'template') });
      if (pix.non2xx) throw new Error('the Pix template deposit was refused');
      const [pixTemplate] = await query<{ id: number }>(side.db, `SELECT max(id) AS id FROM deposits WHERE merchant_id = $1 AND status = 'PENDING' AND payment_method IS NOT NULL`, [m.merchant_id]);
      await seedPending(side, pixTemplate!.id, APPROVALS * (SECONDS + 1) * ROUNDS * PAGE_NAMES.length + 1000);
      for (let u = 0; u < USERS; u++) {
        const p = new PanelClient(url);
        const r = await p.signIn(m.panel.email, m.panel.password);
        if (r.status !== 200) throw new Error(`panel sign-in: ${r.status}`);
        side.cookies.push(p.cookieHeader);
      }
    }
    for (const s of sides) await folded(s, log);
    // The planner's statistics of the tables the SQL grew, as autovacuum keeps them in service
    // (where they grow over 30 days): left to the bench's minutes, the balance page's movements were
    // planned on the empty ledger's statistics, a nested loop over every one of the merchant's
    // entries (0.5 s at 150,000 deposits; 0.3 ms once analyzed).
    for (const s of sides) await query(s.db, 'ANALYZE');
    const table: Record<string, unknown> = {};
    const lines: string[] = [];
    for (const page of PAGE_NAMES) {
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        for (const s of order) s.rps.get(page)!.push(await measure(s, page, round));
      }
      const [small, large] = sides.map((s) => s.rps.get(page)!) as [number[], number[]];
      const ratio = median(small) / median(large);
      const perRound = small.map((r, i) => (r / large[i]!).toFixed(2));
      lines.push(`| ${page} (${PAGES[page]!(sides[1]!)}) | ${Math.round(median(small))}/s | ${Math.round(median(large))}/s | **${ratio.toFixed(2)}** | ${perRound.join(', ')} |`);
      table[page] = { small: median(small), large: median(large), cost_ratio: Number(ratio.toFixed(2)), per_round: perRound.map(Number) };
    }
    console.log(`\n| page (${USERS} signed-in users; ${ARRIVALS} deposits/s arriving, ${APPROVALS}/s completing) | ${sides[0]!.label} | ${sides[1]!.label} | cost ratio | per round |`);
    console.log(`|---|---:|---:|---:|---|`);
    for (const l of lines) console.log(l);
    return table;
  } finally {
    for (const s of sides) await stopServer(s.child);
    for (const d of dbs) await d.drop();
  }
}
