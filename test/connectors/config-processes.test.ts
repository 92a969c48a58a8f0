// A connector configuration saved on one caja process serves on another at once (issue 45): two
// caja processes on one PostgreSQL database, each caching the configuration for an hour
// (CAJA_CACHE_SECONDS=3600); the second has read it (nothing configured) before the first saves
// the operator's own accounts for BR SB, and its next deposit already goes through them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../helpers/until.ts';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresUrl } from '../helpers/databases.ts';
import { migratedScratchDatabase } from '../helpers/pg-template.ts';
import { cpf } from '../helpers/documents.ts';
import { serverEntry } from '../helpers/server-entry.ts';

const pgUrl = postgresUrl();
const OWN = { country: 'BR', method: 'SB', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '4417', account: '13009218-7', document: '11444777000161' };

test('a connector saved on one process serves on another at once, whatever CAJA_CACHE_SECONDS', { skip: pgUrl ? false : 'needs DATABASE_URL (PostgreSQL)' }, async () => {
  const db = await migratedScratchDatabase(pgUrl!);
  const adminToken = randomBytes(18).toString('base64url');
  const masterKey = randomBytes(32).toString('base64');
  const children: ChildProcess[] = [];
  async function start(name: string): Promise<string> {
    const child = spawn(process.execPath, [serverEntry()], {
      env: {
        ...process.env, DATABASE_URL: db.url, CAJA_PROCESSES: '1', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
        CAJA_ADMIN_TOKEN: adminToken, CAJA_MASTER_KEY: masterKey, CAJA_CACHE_SECONDS: '3600', DATA_DIR: mkdtempSync(join(tmpdir(), `caja-cfg-${name}-`)),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    // Up in a few seconds on a quiet machine; on one loaded by other work, a minute or more.
    for (let i = 0; i < 2400; i++) {
      const url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url && /caja ready/.test(out)) return url;
      if (child.exitCode !== null) assert.fail(`caja ${name} exited: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`caja ${name} not ready: ${out}`);
  }
  try {
    const a = await start('a');
    const b = await start('b');
    const adminCall = async (base: string, method: string, path: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as any };
    };
    const created = await adminCall(a, 'POST', '/admin/merchants', { name: 'Config' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const creds = created.body as { deposits: { login: string; secret_key: string } };
    let n = 0;
    const deposit = async (base: string) => {
      const body = JSON.stringify({
        country: 'BR', amount: '100.00', currency: 'BRL', payment_method: 'SB', invoice_id: `cfg-${++n}-${Date.now()}`,
        payer: { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      const xDate = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const sig = createHmac('sha256', creds.deposits.secret_key).update(xDate + creds.deposits.login + body).digest('hex');
      const r = await fetch(`${base}/v3/deposits`, {
        method: 'POST', body, headers: { 'content-type': 'application/json', 'x-date': xDate, 'x-login': creds.deposits.login, authorization: `SVC ${sig}` },
      });
      const answer = (await r.json()) as { deposit_id?: number };
      assert.equal(r.status, 200, JSON.stringify(answer));
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        return (await client.query<{ connector: string | null }>('SELECT connector FROM deposits WHERE id = $1', [answer.deposit_id])).rows[0]!.connector;
      } finally {
        await client.end();
      }
    };
    // B reads the configuration (none: the staging simulator collects SB) and keeps it for an hour.
    assert.equal(await deposit(b), 'staging');
    const put = await adminCall(a, 'PUT', '/admin/connectors/own_accounts', { accounts: [OWN] });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    // Saved on A: B's deposits go through it as soon as A's commit notifies B (not after the
    // hour of its cache); until then (a moment, longer on a loaded machine) the staging one.
    await until('B serving the saved connector', () => deposit(b), (connector) => {
      if (connector !== 'own_accounts') assert.equal(connector, 'staging');
      return connector === 'own_accounts';
    }, 30_000);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await db.drop();
  }
});
