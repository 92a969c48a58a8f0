// CAJA_PROCESSES: the default, the refusal on the embedded database, and N server processes on
// one port over PostgreSQL (node:cluster) that share the load, survive the loss of one, and stop
// together on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/config/config.ts';
import { processCount } from '../../src/server/processes.ts';
import { postgresUrl } from '../helpers/databases.ts';
import { migratedScratchDatabase } from '../helpers/pg-template.ts';
import { serverEntry } from '../helpers/server-entry.ts';

const DB = 'postgres://x@127.0.0.1/y';

test('one process by default in staging and on the embedded database; every core in production on PostgreSQL', () => {
  assert.equal(processCount({}, { sandbox: true, databaseUrl: DB }), 1);
  assert.equal(processCount({}, { sandbox: false, databaseUrl: undefined }), 1);
  assert.equal(processCount({}, { sandbox: false, databaseUrl: DB }), availableParallelism());
  assert.equal(processCount({ CAJA_PROCESSES: '3' }, { sandbox: true, databaseUrl: DB }), 3);
  assert.equal(processCount({ CAJA_PROCESSES: '1' }, { sandbox: false, databaseUrl: undefined }), 1);
});

test('a bad CAJA_PROCESSES, or more than one on the embedded database, is a configuration error', () => {
  for (const v of ['0', '-1', 'two', '1.5', '257']) {
    assert.throws(() => processCount({ CAJA_PROCESSES: v }, { sandbox: true, databaseUrl: DB }), ConfigError, v);
  }
  assert.throws(() => processCount({ CAJA_PROCESSES: '2' }, { sandbox: true, databaseUrl: undefined }), /needs DATABASE_URL.*PGlite/);
  const r = spawnSync(process.execPath, [serverEntry()], {
    env: { ...process.env, DATABASE_URL: '', CAJA_PROCESSES: '2', DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-procs-')), PORT: '0' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /configuration error: CAJA_PROCESSES=2 needs DATABASE_URL/);
});

const pgUrl = postgresUrl();

test('CAJA_PROCESSES=2: two servers on one port share the requests, one killed is replaced, SIGTERM stops both', { skip: pgUrl ? false : 'needs DATABASE_URL (PostgreSQL)' }, async () => {
  const db = await migratedScratchDatabase(pgUrl!);
  const adminToken = randomBytes(18).toString('base64url');
  const child = spawn(process.execPath, [serverEntry()], {
    env: {
      ...process.env, DATABASE_URL: db.url, CAJA_PROCESSES: '2', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
      CAJA_ADMIN_TOKEN: adminToken, DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-procs-')),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const readyPids = () => new Set([...out.matchAll(/"pid":(\d+)[^\n]*"msg":"caja ready/g)].map((m) => Number(m[1])));
  const waitFor = async (what: string, ok: () => boolean) => {
    // Up in a few seconds on a quiet machine; on one loaded by other work, a minute or more.
    for (const deadline = Date.now() + 120_000; Date.now() < deadline && !ok();) {
      if (child.exitCode !== null) assert.fail(`supervisor exited while waiting for ${what}: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(ok(), `${what}: ${out}`);
  };
  try {
    await waitFor('two servers', () => readyPids().size === 2);
    const base = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const [first] = [...readyPids()];

    const created = await fetch(`${base}/admin/merchants`, {
      method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Two' }),
    });
    const creds = (await created.json()) as { merchant_id: number; deposits: { login: string; secret_key: string } };
    const deposit = async (invoice: string) => {
      const body = JSON.stringify({ country: 'MX', currency: 'MXN', amount: '100.00', invoice_id: invoice });
      const xDate = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const sig = createHmac('sha256', creds.deposits.secret_key).update(xDate + creds.deposits.login + body).digest('hex');
      // A connection of its own per request, so that the cluster hands them round-robin to both.
      const r = await fetch(`${base}/v3/deposits`, {
        method: 'POST', body,
        headers: { 'content-type': 'application/json', 'x-date': xDate, 'x-login': creds.deposits.login, authorization: `SVC ${sig}`, connection: 'close' },
      });
      return r.status;
    };
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => deposit(`two-${i}`)));
    assert.deepEqual(statuses, Array(20).fill(200));
    const served = new Set([...out.matchAll(/"pid":(\d+)[^\n]*"url":"\/v3\/deposits"/g)].map((m) => Number(m[1])));
    assert.equal(served.size, 2, 'both processes served deposit creations');

    // One server dies: the supervisor starts another, and the service keeps answering.
    process.kill(first!, 'SIGKILL');
    await waitFor('a replacement', () => readyPids().size === 3);
    const after = await Promise.all(Array.from({ length: 10 }, (_, i) => deposit(`after-${i}`)));
    assert.deepEqual(after, Array(10).fill(200));

    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    for (const pid of readyPids()) {
      assert.throws(() => process.kill(pid, 0), /ESRCH/, `server ${pid} stopped`);
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await db.drop();
  }
});
