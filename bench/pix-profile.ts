// Pix ONE_SHOT against HOSTED creation on one server process, alternating phases so that the
// machine's drift falls on both (issue 43: ONE_SHOT ≥ 0.6 × HOSTED), and, with --profile, a V8
// CPU profile of each kind on a server of its own, summarised as self time per request
// (bench/cpu-top.ts). Ratios only: the machine is shared.
// --hold-cost instead: HOSTED creation with the failover hold (writes outside a transaction run
// in one, with their tx_outcomes token) against CAJA_DB_HOLD_MS=0 (no hold, the statement alone),
// two servers on one database, alternating.
// --against <dir> instead: this build (dist/) against another (<dir>/main.mjs, say main's dist
// copied aside before a change), each on a database of its own, both loaded at the same time
// (HOSTED on both, then Pix on both); per build the rates, Pix / HOSTED, and the CPU per
// creation of its server and of its database's backends (bench/cpu-split.ts).
//   node --import tsx bench/pix-profile.ts [--profile | --hold-cost | --against <dir>] [rounds, default 3]
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ADMIN_TOKEN, DURATION, WARMUP, depositRequests, runHttp, serverPids, startServer, stopServer, summary, freshDatabase } from './deposits.ts';
import { withCpuSplit, type CpuSplit } from './cpu-split.ts';

const args = process.argv.slice(2);
const profile = args.includes('--profile');
const againstAt = args.indexOf('--against');
const against = againstAt >= 0 ? args.splice(againstAt, 2)[1] : undefined;
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);

async function merchant(url: string) {
  const res = await fetch(`${url}/admin/merchants`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bench' }) });
  const m = (await res.json()) as { deposits: { login: string; secret_key: string } };
  return m.deposits;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** --against: two builds, each on its own database, phases alternating between them. */
async function compareBuilds(other: string): Promise<void> {
  const builds = [{ name: 'this', entry: undefined as string | undefined }, { name: 'other', entry: join(other, 'main.mjs') }];
  type Side = {
    name: string; db: Awaited<ReturnType<typeof freshDatabase>>; server: Awaited<ReturnType<typeof startServer>>; m: Awaited<ReturnType<typeof merchant>>; database: string;
    rows: { hosted: number; pix: number; hostedUs: number; pixUs: number; hostedDb: number; pixDb: number }[];
  };
  const sides: Side[] = [];
  for (const b of builds) {
    const db = await freshDatabase();
    const server = await startServer(db.url, { CAJA_PROCESSES: '1' }, { entry: b.entry });
    const m = await merchant(server.url);
    sides.push({ name: b.name, db, server, m, database: new URL(db.url).pathname.slice(1), rows: [] });
  }
  try {
    for (const s of sides) {
      await runHttp(s.server.url, WARMUP, depositRequests(s.m.login, s.m.secret_key, 'hosted', `${s.name}-warm`));
      await runHttp(s.server.url, WARMUP, depositRequests(s.m.login, s.m.secret_key, 'pix', `${s.name}-warm`));
    }
    // Both builds are loaded at the same time, each by its own connections: whatever else runs on
    // the machine weighs on both alike, which measuring one after the other cannot promise.
    for (let i = 0; i < rounds; i++) {
      const phase = (s: Side, kind: 'hosted' | 'pix') =>
        withCpuSplit(() => serverPids(s.server.child.pid!), async () => summary(await runHttp(s.server.url, DURATION, depositRequests(s.m.login, s.m.secret_key, kind, `${s.name}-${kind}-${i}`))), s.database);
      const hs = await Promise.all(sides.map((s) => phase(s, 'hosted')));
      const ps = await Promise.all(sides.map((s) => phase(s, 'pix')));
      sides.forEach((s, k) => {
        const h = hs[k]!;
        const p = ps[k]!;
        const cpu = (r: typeof h) => ('server_us_per_request' in r.cpu ? r.cpu : { server_us_per_request: NaN, database_us_per_request: NaN });
        const row = { hosted: h.rps, pix: p.rps, hostedUs: cpu(h).server_us_per_request, pixUs: cpu(p).server_us_per_request, hostedDb: cpu(h).database_us_per_request ?? NaN, pixDb: cpu(p).database_us_per_request ?? NaN };
        s.rows.push(row);
        console.log(`round ${i + 1} ${s.name}: HOSTED ${row.hosted}/s (errors ${h.errors}), Pix ${row.pix}/s (errors ${p.errors}): ${(row.pix / row.hosted).toFixed(2)} ×; server µs per creation ${row.hostedUs} / ${row.pixUs}, its database ${row.hostedDb} / ${row.pixDb}`);
      });
    }
    for (const s of sides) {
      const r = s.rows;
      console.log(`${s.name}: Pix / HOSTED ${r.map((x) => (x.pix / x.hosted).toFixed(2)).join(', ')}; server µs per HOSTED ${r.map((x) => x.hostedUs).join(', ')}, per Pix ${r.map((x) => x.pixUs).join(', ')}; database µs per HOSTED ${r.map((x) => x.hostedDb).join(', ')}, per Pix ${r.map((x) => x.pixDb).join(', ')}`);
    }
    const [a, b] = sides as [Side, Side];
    const per = (k: 'hosted' | 'pix' | 'hostedUs' | 'pixUs') => a.rows.map((x, i) => x[k] / b.rows[i]![k]);
    console.log(`this / other, per round: HOSTED rate ${per('hosted').map((x) => x.toFixed(2)).join(', ')}; Pix rate ${per('pix').map((x) => x.toFixed(2)).join(', ')}; server CPU per HOSTED ${per('hostedUs').map((x) => x.toFixed(2)).join(', ')}, per Pix ${per('pixUs').map((x) => x.toFixed(2)).join(', ')} (medians ${median(per('hostedUs')).toFixed(2)}, ${median(per('pixUs')).toFixed(2)})`);
  } finally {
    for (const s of sides) {
      await stopServer(s.server.child);
      await s.db.drop();
    }
  }
}

if (against) {
  await compareBuilds(against);
  process.exit(0);
}

const db = await freshDatabase();
try {
  if (args.includes('--hold-cost')) {
    const held = await startServer(db.url, { CAJA_PROCESSES: '1' });
    const bare = await startServer(db.url, { CAJA_PROCESSES: '1', CAJA_DB_HOLD_MS: '0' });
    try {
      const h = await merchant(held.url);
      const b = await merchant(bare.url);
      await runHttp(held.url, WARMUP, depositRequests(h.login, h.secret_key, 'hosted', 'hw'));
      await runHttp(bare.url, WARMUP, depositRequests(b.login, b.secret_key, 'hosted', 'bw'));
      const ratios: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const x = summary(await runHttp(held.url, DURATION, depositRequests(h.login, h.secret_key, 'hosted', `h${i}`)));
        const y = summary(await runHttp(bare.url, DURATION, depositRequests(b.login, b.secret_key, 'hosted', `b${i}`)));
        ratios.push(x.rps / y.rps);
        console.log(`round ${i + 1}: HOSTED with hold ${x.rps}/s p99 ${x.p99_ms} ms, without ${y.rps}/s p99 ${y.p99_ms} ms: ${(x.rps / y.rps).toFixed(2)} ×`);
      }
      console.log(`with hold / without: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
    } finally {
      await stopServer(held.child);
      await stopServer(bare.child);
    }
  }
  if (profile && !args.includes('--hold-cost')) {
    for (const kind of ['hosted', 'pix'] as const) {
      const dir = mkdtempSync(join(tmpdir(), `caja-prof-${kind}-`));
      process.env.BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;
      const { url, child } = await startServer(db.url, { CAJA_PROCESSES: '1' });
      const { login, secret_key } = await merchant(url);
      await runHttp(url, WARMUP, depositRequests(login, secret_key, kind, `${kind}-warm`));
      const r = summary(await runHttp(url, DURATION, depositRequests(login, secret_key, kind, `${kind}-prof`)));
      await stopServer(child);
      const files = readdirSync(dir).map((f) => join(dir, f));
      console.log(`## ${kind}: ${r.rps}/s, ${r.requests} requests (+ warm-up), errors ${r.errors}`);
      const top = spawnSync(process.execPath, ['--import', 'tsx', 'bench/cpu-top.ts', '--top', '25', ...files], { encoding: 'utf8' });
      console.log(top.stdout);
    }
    delete process.env.BENCH_NODE_ARGS;
  }
  const { url, child } = args.includes('--hold-cost') ? { url: '', child: null } : await startServer(db.url, { CAJA_PROCESSES: '1' });
  if (child) try {
    const { login, secret_key } = await merchant(url);
    await runHttp(url, WARMUP, depositRequests(login, secret_key, 'hosted', 'warm'));
    await runHttp(url, WARMUP, depositRequests(login, secret_key, 'pix', 'warm'));
    const ratios: number[] = [];
    // The server's CPU per creation too: on a shared machine the rates swing with the neighbours'
    // load, the CPU a creation costs the server much less (PostgreSQL's figure counts every
    // postgres process on the machine, other databases' included).
    const cpuRatios: number[] = [];
    const pids = () => serverPids(child.pid!);
    const us = (r: { cpu: CpuSplit | { skipped: string } }) => ('server_us_per_request' in r.cpu ? r.cpu : null);
    for (let i = 0; i < rounds; i++) {
      const h = await withCpuSplit(pids, async () => summary(await runHttp(url, DURATION, depositRequests(login, secret_key, 'hosted', `h${i}`))));
      const p = await withCpuSplit(pids, async () => summary(await runHttp(url, DURATION, depositRequests(login, secret_key, 'pix', `p${i}`))));
      ratios.push(p.rps / h.rps);
      const hc = us(h);
      const pc = us(p);
      if (hc && pc) cpuRatios.push(hc.server_us_per_request / pc.server_us_per_request);
      const cpu = hc && pc ? `; server CPU per creation HOSTED ${hc.server_us_per_request} µs, Pix ${pc.server_us_per_request} µs (PostgreSQL ${hc.postgres_us_per_request}, ${pc.postgres_us_per_request} µs)` : '';
      console.log(`round ${i + 1}: HOSTED ${h.rps}/s (errors ${h.errors}), Pix ONE_SHOT ${p.rps}/s (errors ${p.errors}): ${(p.rps / h.rps).toFixed(2)} ×${cpu}`);
    }
    if (cpuRatios.length) console.log(`server CPU per HOSTED creation / per Pix creation: ${cpuRatios.map((r) => r.toFixed(2)).join(', ')}`);
    console.log(`Pix ONE_SHOT / HOSTED: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
  } finally {
    await stopServer(child);
  }
} finally {
  await db.drop();
}
