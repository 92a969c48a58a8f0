// What RPO 0 costs: signed deposit creation through the cluster of scripts/ha/start.sh (haproxy,
// three caja instances, pgbouncer, the primary), with the synchronous standby (a commit waits
// for the standby's flush) and without it (Patroni's synchronous_mode off: the primary commits
// alone and a failover may lose the last commits). Runs alternate between the two, so that the
// machine's drift falls on both; p50 and p99 of each, for one client and for 16.
//   node --import tsx scripts/ha/latency.ts [requests per run, default 600]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { admin, type Credentials, V3Client } from '../../test/helpers/clients.ts';
import { cpf } from '../../test/helpers/documents.ts';

const HA_DIR = process.env.HA_DIR || '/tmp/caja-ha';
const BASE = Number(process.env.HA_PORT_BASE || 43000);
const LB = `http://127.0.0.1:${BASE + 50}`;
const PER_RUN = Number(process.argv[2] ?? 600);
const ROUNDS = 3;
const token = readFileSync(join(HA_DIR, 'admin.token'), 'utf8').trim();

const payer = { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function syncNames(): Promise<string> {
  const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${BASE + 40}/postgres` });
  await c.connect();
  try {
    return (await c.query<{ s: string }>("SELECT current_setting('synchronous_standby_names') AS s")).rows[0]!.s;
  } finally {
    await c.end();
  }
}

async function setSynchronous(on: boolean): Promise<void> {
  execFileSync('patronictl', ['-c', join(HA_DIR, 'pg1.yml'), 'edit-config', '--force', '--set', `synchronous_mode=${on}`], { stdio: 'ignore' });
  for (let i = 0; i < 120; i++) {
    if ((await syncNames()).length > 0 === on) return;
    await sleep(250);
  }
  throw new Error(`synchronous_mode=${on} not applied`);
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function measure(v3: V3Client, clients: number, n: number): Promise<number[]> {
  const times: number[] = [];
  let sent = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (sent < n) {
      sent++;
      const t0 = performance.now();
      const r = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'USD', payment_method: 'IX', payer });
      if (r.status !== 200) throw new Error(`deposit: ${r.status} ${r.text}`);
      times.push(performance.now() - t0);
    }
  }));
  return times;
}

const created = await admin(LB, 'POST', '/admin/merchants', { name: 'Latency' }, token);
if (created.status !== 201) throw new Error(`merchant: ${created.status} ${created.text}`);
const m = created.body as Credentials;
const v3 = V3Client.deposits(LB, m);
await measure(v3, 8, 200); // warm-up: connections, plans, JIT
const results: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const on of [true, false]) {
    await setSynchronous(on);
    for (const clients of [1, 16]) {
      const key = `${on ? 'synchronous standby' : 'primary alone'}, ${clients} client${clients > 1 ? 's' : ''}`;
      (results[key] ??= []).push(...(await measure(v3, clients, PER_RUN)));
    }
  }
}
await setSynchronous(true);
console.log(`| deposit creation (${ROUNDS} × ${PER_RUN} per row, alternating) | p50 ms | p99 ms |`);
console.log('|---|---|---|');
for (const [key, times] of Object.entries(results)) {
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`| ${key} | ${pct(sorted, 50).toFixed(1)} | ${pct(sorted, 99).toFixed(1)} |`);
}
