// Scale-out on more than one machine, with separate processes standing in for separate hosts:
// three caja instances (own ports) behind haproxy, over one PostgreSQL behind pgbouncer in
// transaction mode (Debian's packages; pgbouncer 1.18 does not track named prepared statements,
// hence prepared_statements=false, docs/operations.md). Deposits, approvals, refunds and their
// notifications go through all three; one instance is killed (SIGKILL) while deposits are being
// created. Nothing acknowledged may be lost, nothing done twice, every notification delivered once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, constants, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresUrl } from '../helpers/databases.ts';
import { migratedScratchDatabase } from '../helpers/pg-template.ts';
import { createMerchant, V3Client } from '../helpers/clients.ts';
import { ADMIN_TOKEN } from '../helpers/server.ts';
import { serverEntry } from '../helpers/server-entry.ts';

const base = postgresUrl();
const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
const tool = (name: string) => ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'].map((d) => join(d, name)).find(executable);
const haproxy = tool('haproxy');
const pgbouncer = tool('pgbouncer');
const missing = [!haproxy && 'haproxy', !pgbouncer && 'pgbouncer'].filter(Boolean);
const skip = !base ? 'needs DATABASE_URL (PostgreSQL)' : missing.length ? `needs ${missing.join(' and ')} (apt-get install haproxy pgbouncer)` : false;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitUntil(what: string, ok: () => Promise<boolean>, ms = 30_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

const ACCOUNT = { beneficiary: 'Maria Souza', bank_code: '260', branch: '0001', account_number: '12345-6', account_type: 'CHECKING' };
const PAYER = { document: '11144477735', first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };

test('three instances behind haproxy over pgbouncer: nothing lost or done twice when one is killed', { skip, timeout: 180_000 }, async () => {
  const db = await migratedScratchDatabase(base!);
  const dir = mkdtempSync(join(tmpdir(), 'caja-scale-'));
  // pgbouncer refuses to run as root; as root it is told to switch to the postgres user, which
  // must be able to read its files.
  chmodSync(dir, 0o755);
  const children: ChildProcess[] = [];
  const receiver = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ id: String(req.headers['caja-notification-id']), body });
      res.end('ok');
    });
  });
  const received: { id: string; body: string }[] = [];
  try {
    const pgUrl = new URL(db.url);
    const bouncerPort = await freePort();
    writeFileSync(join(dir, 'userlist.txt'), `"${decodeURIComponent(pgUrl.username) || 'postgres'}" ""\n`);
    writeFileSync(join(dir, 'pgbouncer.ini'), `[databases]
caja = host=${pgUrl.hostname} port=${pgUrl.port || 5432} dbname=${pgUrl.pathname.slice(1)} user=${decodeURIComponent(pgUrl.username) || 'postgres'}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${bouncerPort}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'userlist.txt')}
pool_mode = transaction
max_client_conn = 200
default_pool_size = 10
${process.getuid?.() === 0 ? 'user = postgres' : ''}
`);
    const bouncer = spawn(pgbouncer!, [join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(bouncer);
    let bouncerLog = '';
    bouncer.stderr!.on('data', (d) => (bouncerLog += d));
    const databaseUrl = `postgres://${decodeURIComponent(pgUrl.username) || 'postgres'}@127.0.0.1:${bouncerPort}/caja?prepared_statements=false`;
    await waitUntil(`pgbouncer (${bouncerLog})`, async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      await c.end();
      return true;
    });

    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

    const masterKey = randomBytes(32).toString('base64');
    const ports = [await freePort(), await freePort(), await freePort()];
    const instances = ports.map((port) => {
      const child = spawn(process.execPath, [serverEntry()], {
        env: {
          ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', CAJA_ENV: 'staging', CAJA_PROCESSES: '1',
          CAJA_ADMIN_TOKEN: ADMIN_TOKEN, CAJA_MASTER_KEY: masterKey, DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-scale-data-')), LOG_LEVEL: 'warn',
          CAJA_NOTIFY_POLL_MS: '50', CAJA_NOTIFY_RETRY_SECONDS: '0.2', CAJA_NOTIFY_LEASE_SECONDS: '2',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      return child;
    });
    for (const port of ports) await waitUntil(`caja on ${port}`, async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok);

    const lbPort = await freePort();
    writeFileSync(join(dir, 'haproxy.cfg'), `global
  maxconn 1000
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch
frontend caja
  bind 127.0.0.1:${lbPort}
  default_backend caja
backend caja
  balance roundrobin
  option httpchk GET /health
  timeout check 2s
  default-server inter 300ms fall 2 rise 2
${ports.map((p, i) => `  server caja${i} 127.0.0.1:${p} check`).join('\n')}
`);
    children.push(spawn(haproxy!, ['-f', join(dir, 'haproxy.cfg'), '-db'], { stdio: 'ignore' }));
    const lb = `http://127.0.0.1:${lbPort}`;
    await waitUntil('haproxy', async () => (await fetch(`${lb}/health`)).ok);

    const merchant = await createMerchant(lb, 'Scale', { notification_url: hook });
    const v3 = V3Client.deposits(lb, merchant);

    // A merchant's integration: a request that fails in transit is sent again (a new X-Date, so
    // not a replay); the invoice id or the idempotency key makes the repeat harmless.
    const retry = async (what: string, send: () => Promise<{ status: number; body: any }>, done: (r: { status: number; body: any }) => boolean) => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const r = await send().catch((err) => ({ status: 0, body: String(err) }));
        if (done(r)) return r;
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.fail(`${what} never succeeded`);
    };

    const N = 90;
    const acknowledged = new Map<string, number>();
    let sent = 0;
    const create = async (i: number) => {
      const invoice = `scale-${i}`;
      const r = await retry(`deposit ${invoice}`, () => v3.post('/v3/deposits', { country: 'BR', amount: '100.00', currency: 'USD', payment_method: 'IX', invoice_id: invoice, payer: PAYER }),
        (res) => res.status === 200 || JSON.stringify(res.body).includes('invoice_id: already used'));
      // "already used": an earlier attempt was committed and its answer lost (the instance died).
      acknowledged.set(invoice, r.status === 200 ? r.body.deposit_id : -1);
    };
    const workers = Array.from({ length: 6 }, async () => {
      while (sent < N) {
        const i = ++sent;
        if (i === Math.floor(N / 3)) instances[0]!.kill('SIGKILL'); // mid-load, without warning
        await create(i);
      }
    });
    await Promise.all(workers);
    assert.equal(acknowledged.size, N);

    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    try {
      const { rows: deps } = await check.query<{ invoice_id: string; id: number }>('SELECT invoice_id, id FROM deposits WHERE merchant_id = $1', [merchant.merchant_id]);
      assert.equal(deps.length, N, 'one deposit per invoice, none lost, none doubled');
      for (const d of deps) {
        const ack = acknowledged.get(d.invoice_id);
        if (ack !== -1) assert.equal(ack, Number(d.id), d.invoice_id);
      }

      // Approve every deposit and refund a part of each, through the two instances left.
      const ids = deps.map((d) => Number(d.id));
      await Promise.all(ids.map((id) => retry(`approve ${id}`, () => v3.post(`/v3/sandbox/deposits/${id}/approve`, ''),
        (r) => r.status === 200 || JSON.stringify(r.body).includes('COMPLETED'))));
      const refunds = await Promise.all(ids.map((id) => retry(`refund of ${id}`,
        () => v3.post('/v3/refunds', { deposit_id: id, amount: '30.00', bank_account: ACCOUNT, notification_url: hook }, { 'X-Idempotency-Key': `scale-refund-${id}` }),
        (r) => r.status === 200)));
      await Promise.all(refunds.map((r) => retry(`refund ${r.body.refund_id} completion`, () => v3.post(`/v3/sandbox/refunds/${r.body.refund_id}/complete`, ''),
        (res) => res.status === 200 || JSON.stringify(res.body).includes('COMPLETED'))));

      const { rows: refundRows } = await check.query<{ deposit_id: number; n: number }>(
        `SELECT deposit_id, count(*)::int AS n FROM refunds WHERE deposit_id = ANY($1) GROUP BY deposit_id`, [ids]);
      assert.equal(refundRows.length, N, 'every deposit refunded');
      assert.ok(refundRows.every((r) => r.n === 1), 'no refund made twice');
      const { rows: [balance] } = await check.query<{ completed: number; refunded: number }>(
        `SELECT count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed, count(*) FILTER (WHERE refunded_amount > 0)::int AS refunded FROM deposits WHERE merchant_id = $1`,
        [merchant.merchant_id]);
      assert.deepEqual(balance, { completed: N, refunded: N });

      // Every notification the service recorded is delivered, and the receiver got each once.
      await waitUntil('every notification delivered', async () => {
        const { rows } = await check.query<{ pending: number }>(`SELECT count(*) FILTER (WHERE status <> 'delivered')::int AS pending FROM notifications WHERE merchant_id = $1`, [merchant.merchant_id]);
        return rows[0]!.pending === 0;
      }, 60_000);
      const { rows: notes } = await check.query<{ id: string }>('SELECT id::text FROM notifications WHERE merchant_id = $1', [merchant.merchant_id]);
      assert.ok(notes.length >= 2 * N, `a notification per approval and per refund (${notes.length})`);
      const got = received.map((r) => r.id).sort();
      assert.deepEqual(got, notes.map((n) => n.id).sort(), 'each notification delivered exactly once');
    } finally {
      await check.end();
    }
  } finally {
    // The load balancer and the instances first, so that they finish their work before pgbouncer goes.
    const stop = async (list: ChildProcess[]) => {
      const running = list.filter((c) => c.exitCode === null && c.signalCode === null);
      for (const c of running) c.kill('SIGTERM');
      await Promise.all(running.map((c) => new Promise((r) => c.once('exit', r))));
    };
    await stop(children.slice(1));
    await stop(children.slice(0, 1));
    receiver.close();
    await db.drop();
  }
});
