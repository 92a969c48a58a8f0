// The real entry point as an operator runs it: start, JSON logs with request ids and no secrets,
// configuration errors, graceful shutdown on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { createMerchant, hmac, xDateNow } from '../helpers/clients.ts';
import { postgresUrl } from '../helpers/databases.ts';
import { migratedScratchDatabase } from '../helpers/pg-template.ts';
import { ADMIN_TOKEN } from '../helpers/server.ts';
import { serverEntry } from '../helpers/server-entry.ts';

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [serverEntry()], {
    env: { ...process.env, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && out.includes('caja ready')) {
        clearInterval(timer);
        resolve(m[1]);
      }
    }, 50);
    child.on('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`exited ${code}: ${out}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ready, exited, output: () => out };
}

test('serves, logs JSON lines with request ids and never a secret, and stops cleanly on SIGTERM', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'caja-proc-'));
  const adminToken = randomBytes(18).toString('base64url');
  const server = start({ DATA_DIR: dataDir, CAJA_ADMIN_TOKEN: adminToken });
  const base = await server.ready;
  assert.ok(existsSync(join(dataDir, 'caja.pid')), 'embedded data dir is locked while serving');

  const created = await fetch(`${base}/admin/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', 'x-request-id': 'create-req-1' },
    body: JSON.stringify({ name: 'Logged' }),
  });
  const c = (await created.json()) as any;
  const xDate = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const sig = createHmac('sha256', c.deposits.secret_key).update(xDate + c.deposits.login).digest('hex');
  const me = await fetch(`${base}/v3/me`, { headers: { 'X-Date': xDate, 'X-Login': c.deposits.login, Authorization: `SVC ${sig}` } });
  assert.equal(me.status, 200);
  // The compiled build carries the files its modules read beside them: the migrations (the empty
  // data dir above was migrated) and the OpenAPI document's examples.
  const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  assert.match(JSON.stringify(openapi.paths['/v3/deposits']), /"examples?"/);

  // A second process on the same embedded data dir is refused instead of corrupting it. Through
  // bin/caja.mjs, what `npx caja` runs (the CLI's other tests start the compiled CLI).
  const cli = spawnSync(process.execPath, ['bin/caja.mjs', 'merchant', 'create', '--name', 'X'], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' }, encoding: 'utf8' });
  assert.equal(cli.status, 1);
  assert.match(cli.stderr, /in use by process/);

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  assert.ok(!existsSync(join(dataDir, 'caja.pid')), 'lock released');

  const lines = server.output().trim().split('\n');
  const records = lines.map((l) => JSON.parse(l));
  assert.ok(records.some((r) => r.reqId === 'create-req-1' && r.req?.url === '/admin/merchants'), 'request id in the log');
  assert.ok(records.some((r) => r.msg === 'shutting down'));
  const all = server.output();
  for (const secret of [adminToken, c.deposits.trans_key, c.deposits.secret_key, c.cashouts.pass, c.cashouts.secret_key, c.read_only_key, c.panel.password, sig]) {
    assert.ok(!all.includes(secret), 'a secret reached the log');
  }
});

test('a bad configuration value stops the process with a message naming it', () => {
  const r = spawnSync(process.execPath, [serverEntry()], { env: { ...process.env, PORT: 'eighty' }, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /configuration error: PORT must be a whole number/);
});

test('SIGTERM with handlers running for clients that already left: they finish before the database closes', { skip: postgresUrl() ? false : 'needs PostgreSQL (DATABASE_URL)' }, async (t) => {
  const db = await migratedScratchDatabase(postgresUrl()!);
  t.after(db.drop);
  const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-proc-')), CAJA_ADMIN_TOKEN: ADMIN_TOKEN, CAJA_ENV: 'staging', DATABASE_URL: db.url, CAJA_MASTER_KEY: randomBytes(32).toString('base64') };
  const server = start(env);
  const base = await server.ready;
  const { deposits: creds } = await createMerchant(base, 'Leaving clients');
  const signedHeaders = (body: string): Record<string, string> => {
    const xDate = xDateNow();
    return { 'x-date': xDate, 'x-login': creds.login, authorization: `SVC ${hmac(creds.secret_key, xDate + creds.login + body)}` };
  };

  // The deposits' statements wait on the merchant's row (their foreign key locks it to share) ...
  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('SELECT 1 FROM merchants FOR UPDATE');
  const N = 200;
  const { port } = new URL(base);
  const sockets = Array.from({ length: N }, (_, i) => {
    const body = JSON.stringify({ country: 'MX', currency: 'MXN', amount: '100.00', invoice_id: `leaving-${i}`, payer: { first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com', document: 'GODE561231GR8' } });
    const head = Object.entries({ host: 'x', 'content-type': 'application/json', ...signedHeaders(body), 'content-length': String(Buffer.byteLength(body)) }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    const s = connect(Number(port), '127.0.0.1');
    s.on('error', () => {});
    s.write(`POST /v3/deposits HTTP/1.1\r\n${head}\r\n${body}`);
    return s;
  });
  // ... until every request has reached its handler (each is logged as it comes in), every
  // client has gone away and the service has been told to stop.
  const incoming = () => server.output().split('\n').filter((l) => l.includes('"msg":"incoming request"') && l.includes('/v3/deposits')).length;
  for (let i = 0; i < 6000 && incoming() < N; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(incoming(), N);
  await new Promise((r) => setTimeout(r, 100));
  for (const s of sockets) s.destroy();
  server.child.kill('SIGTERM');
  // The handlers still wait while the shutdown is under way (a loaded machine takes a while to get there).
  for (let i = 0; i < 3000 && !server.output().includes('"msg":"shutting down"'); i++) await new Promise((r) => setTimeout(r, 10));
  assert.match(server.output(), /"msg":"shutting down"/);
  await new Promise((r) => setTimeout(r, 300));
  await locker.query('COMMIT');
  await locker.end();

  assert.equal(await server.exited, 0);
  const records = server.output().trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string });
  assert.deepEqual(records.filter((r) => r.level >= 50).map((r) => r.msg), [], 'no errors at shutdown');
  const check = new pg.Client({ connectionString: db.url });
  await check.connect();
  const { rows } = await check.query<{ n: number }>(`SELECT count(*)::int AS n FROM deposits WHERE invoice_id LIKE 'leaving-%'`);
  await check.end();
  assert.equal(rows[0]!.n, N, 'every deposit whose handler had started was written');
});
