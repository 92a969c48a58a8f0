// The panel home at PANEL_SMALL (20,000) and PANEL_LARGE (500,000) deposits while deposits keep
// arriving (issue 43: within 1.25 ×). Two databases, one server each (the same build, one process,
// its workers on: the balance fold worker folds the home's figure deltas as in service). Each
// merchant's deposits are made by SQL with the triggers on, as copies of one made through the API
// spread over the last 30 days (a third completed): the figure deltas they append are what the
// API's writes would have left, and the server folds them. Once both backlogs are folded, the
// home is measured on one then the other, PANEL_ROUNDS (3) rounds of PANEL_SECONDS (5), the order
// turned every other round, while HOSTED deposits arrive through the API at PANEL_ARRIVALS (200)
// per second on the server measured. The ratio is of the medians.
//   npm run bench -- panel
import { createRequire } from 'node:module';
import pg from 'pg';
import { ADMIN_TOKEN, depositRequests, freshDatabase, startServer, stopServer } from './deposits.ts';
import { PanelClient } from '../test/panel/helpers.ts';

const SMALL = Number(process.env.PANEL_SMALL ?? 20_000);
const LARGE = Number(process.env.PANEL_LARGE ?? 500_000);
const ROUNDS = Number(process.env.PANEL_ROUNDS ?? 3);
const SECONDS = Number(process.env.PANEL_SECONDS ?? 5);
const ARRIVALS = Number(process.env.PANEL_ARRIVALS ?? 200);
const USERS = 16;

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
  rps: number[];
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
    await query(s.db,
      `INSERT INTO deposits (${cols.join(', ')}, token, invoice_id, status, created_at, updated_at)
       SELECT ${cols.map((c) => `d.${c}`).join(', ')}, md5('gen' || g), 'gen-' || g,
              CASE WHEN g % 3 = 0 THEN 'COMPLETED' ELSE 'CANCELLED' END, t, t
       FROM (SELECT * FROM deposits WHERE merchant_id = $1 ORDER BY id LIMIT 1) d,
            generate_series($2::int, $3::int) g,
            LATERAL (SELECT now() - (g % 30) * interval '1 day' - (g % 3600) * interval '1 second' AS t) w`,
      [merchantId, from + 1, to],
    );
  }
  log(`${s.label}: ${n} deposits made by SQL in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Until the server's fold worker has folded what the generation appended. */
async function folded(s: Side, log: (m: string) => void): Promise<void> {
  const started = Date.now();
  for (;;) {
    const [r] = await query<{ n: number }>(s.db, 'SELECT count(*)::int AS n FROM panel_day_deltas');
    if (r!.n < 5_000 || Date.now() - started > 600_000) {
      log(`${s.label}: backlog folded to ${r!.n} deltas in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    }
    await new Promise((res) => setTimeout(res, 500));
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function measure(s: Side, round: number): Promise<number> {
  // Deposits arriving through the API while the home is read.
  const arrivals = autocannon({
    url: s.url, connections: 8, overallRate: ARRIVALS, duration: SECONDS + 1,
    requests: depositRequests(s.login, s.secret, 'hosted', `arrive-${round}`),
  });
  let at = 0;
  const home = await autocannon({
    url: s.url, connections: USERS, duration: SECONDS,
    requests: [{ method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: '/panel', headers: { cookie: s.cookies[at++ % s.cookies.length]! } }) }],
  });
  const a = await arrivals;
  if (home.non2xx || home.errors) throw new Error(`${s.label}: panel home answered ${home.non2xx} non-2xx, ${home.errors} errors`);
  const rps = home.requests.average;
  console.log(`  round ${round + 1} ${s.label}: panel home ${Math.round(rps)}/s (p99 ${home.latency.p99} ms), deposits arriving ${Math.round(a.requests.average)}/s (non-2xx ${a.non2xx})`);
  return rps;
}

export async function benchPanel(): Promise<Record<string, unknown>> {
  const log = (m: string) => console.log(`  ${m}`);
  const dbs = [await freshDatabase(), await freshDatabase()];
  const sides: Side[] = [];
  try {
    for (const [i, deposits] of [SMALL, LARGE].entries()) {
      const { url, child } = await startServer(dbs[i]!.url, { CAJA_PROCESSES: '1' });
      const side: Side = { label: `${deposits.toLocaleString('en')} deposits`, deposits, url, db: dbs[i]!.url, child, login: '', secret: '', cookies: [], rps: [] };
      sides.push(side);
      const res = await fetch(`${url}/admin/merchants`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Panel bench' }) });
      const m = (await res.json()) as { merchant_id: number; deposits: { login: string; secret_key: string }; panel: { email: string; password: string } };
      side.login = m.deposits.login;
      side.secret = m.deposits.secret_key;
      const first = await autocannon({ url, connections: 1, amount: 1, requests: depositRequests(side.login, side.secret, 'hosted', 'template') });
      if (first.non2xx) throw new Error('the template deposit was refused');
      await generate(side, m.merchant_id, deposits - 1, log);
      for (let u = 0; u < USERS; u++) {
        const p = new PanelClient(url);
        const r = await p.signIn(m.panel.email, m.panel.password);
        if (r.status !== 200) throw new Error(`panel sign-in: ${r.status}`);
        side.cookies.push(p.cookieHeader);
      }
    }
    for (const s of sides) await folded(s, log);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) s.rps.push(await measure(s, round));
    }
    const [small, large] = sides as [Side, Side];
    const ratio = median(small.rps) / median(large.rps);
    const perRound = small.rps.map((r, i) => (r / large.rps[i]!).toFixed(2));
    console.log(`\n| panel home, ${ARRIVALS} deposits/s arriving | ${small.label} | ${large.label} | cost ratio | per round |`);
    console.log(`|---|---:|---:|---:|---|`);
    console.log(`| ${USERS} signed-in users | ${Math.round(median(small.rps))}/s | ${Math.round(median(large.rps))}/s | **${ratio.toFixed(2)}** | ${perRound.join(', ')} |`);
    return { small: median(small.rps), large: median(large.rps), cost_ratio: Number(ratio.toFixed(2)), per_round: perRound.map(Number) };
  } finally {
    for (const s of sides) await stopServer(s.child);
    for (const d of dbs) await d.drop();
  }
}
