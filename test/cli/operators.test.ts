// `caja operator create` and `caja token …` as an operator runs them on a fresh installation:
// the first admin's one-time enrolment link printed (no password, no secret), then that admin
// enrolling through it and signing in to a real `caja start` on the same data directory; a token made by the CLI working against the
// admin API within its scopes, rotated (the old one stops), the CLI's refusals, and operators'
// lifecycle (a reset to a new enrolment link, disable and enable).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { totpCode } from '../../src/backoffice/totp.ts';
import { OpsClient } from '../ops/helpers.ts';
import { CAJA_CLI } from '../helpers/programs.ts';
import { migratedDataDir } from '../helpers/data-dir.ts';
import { cajaInProcess } from '../helpers/cli.ts';

const PORT = 46000 + (process.pid % 50);
const dataDir = await migratedDataDir('caja-cli-ops-');
const env: Record<string, string> = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !k.startsWith('CAJA_') && k !== 'DATABASE_URL' && k !== 'TEST_DATABASE_URL' && v !== undefined) as [string, string][]),
  DATA_DIR: dataDir,
  CAJA_ENV: 'staging',
  LOG_LEVEL: 'silent',
};

// Commands run in this process (test/helpers/cli.ts); `cajaProcess` runs one as the real program,
// for its own exit code and streams (the first operator's creation, a usage error).
const caja = (args: string[]) => cajaInProcess(args, env);

async function cajaProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [CAJA_CLI, ...args], { env });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('caja operator and token commands', () => {
  let first: { id: number; email: string; role: string; enrolment_link: string; expires_at: string };
  let token: { id: number; token: string };
  let server: ChildProcess | undefined;
  const base = `http://127.0.0.1:${PORT}`;

  before(async () => {
    const made = await cajaProcess(['operator', 'create', '--email', 'Root@Ops.Example', '--role', 'admin', '--json']);
    assert.equal(made.code, 0, made.stderr);
    first = JSON.parse(made.stdout);
    const t = await caja(['token', 'create', '--name', 'rates-bot', '--scopes', 'read,rates', '--json']);
    assert.equal(t.code, 0, t.stderr);
    token = JSON.parse(t.stdout);
  });
  after(() => stop());

  // On the embedded database the CLI needs the server stopped (the data directory's lock).
  async function start(): Promise<void> {
    server = spawn(process.execPath, [CAJA_CLI, 'start'], { env: { ...env, PORT: String(PORT), CAJA_WORKERS: 'false' }, stdio: 'ignore' });
    for (let i = 0; i < 150; i++) {
      try {
        if ((await fetch(`${base}/health`)).ok) return;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('caja start did not answer');
  }
  async function stop(): Promise<void> {
    const p = server;
    server = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  }

  /** Enrols through a link printed by the CLI (its path, on this server): the password chosen, the secret shown, its code. */
  async function enrol(link: string, password: string): Promise<string> {
    const path = new URL(link).pathname;
    const c = new OpsClient(base);
    const page = await c.get(path);
    assert.equal(page.status, 200, page.html.slice(0, 300));
    const secret = /<dd class="secret">([A-Z2-7]{32})<\/dd>/.exec(page.html)![1]!;
    const done = await c.request('POST', path, new URLSearchParams({ password, again: password, code: totpCode(secret, new Date()) }));
    assert.equal(done.url, '/ops/login', done.html.slice(0, 300));
    return secret;
  }

  test('the first operator: a one-time enrolment link, no password nor secret; enrolled through it, they sign in', async () => {
    assert.equal(first.email, 'root@ops.example');
    assert.equal(first.role, 'admin');
    assert.match(first.enrolment_link, /\/ops\/enrol\/[\w-]{43}$/);
    assert.deepEqual(Object.keys(first).sort(), ['email', 'enrolment_link', 'expires_at', 'id', 'role'], 'nothing secret but the link is printed');
    assert.ok(Date.parse(first.expires_at) > Date.now() + 71 * 3_600_000);
    await start();
    const password = 'the first admin chose this one';
    const secret = await enrol(first.enrolment_link, password);
    assert.equal((await new OpsClient(base).get(new URL(first.enrolment_link).pathname)).status, 404, 'the link works once');
    const c = new OpsClient(base);
    await c.request('POST', '/ops/login', new URLSearchParams({ email: first.email, password }));
    // The enrolment used this step's code; the next step's is accepted (one step either side).
    const page = await c.submit('/ops/login/code', '/ops/login/code', { code: totpCode(secret, new Date(), 1) });
    assert.equal(page.url, '/ops/merchants');
    assert.equal(page.status, 200);
    await stop();
    const list = await caja(['operator', 'list']);
    assert.match(list.stdout, /root@ops\.example\tadmin\n/);
  });

  test('the same e-mail twice, or an unknown role: refused with the reason', async () => {
    const again = await caja(['operator', 'create', '--email', 'root@ops.example', '--role', 'admin']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /an operator with the e-mail root@ops\.example exists/);
    const role = await cajaProcess(['operator', 'create', '--email', 'x@ops.example', '--role', 'owner']);
    assert.equal(role.code, 64);
    assert.match(role.stderr, /--role must be one of admin, finance, risk, support, read_only/);
  });

  test('a CLI token: its scopes hold, rotation stops the old secret, revocation the new one', async () => {
    await start();
    const call = (t: string, method: string, path: string, body?: unknown) =>
      fetch(base + path, { method, headers: { authorization: `Bearer ${t}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    assert.equal((await call(token.token, 'GET', '/admin/exchange_rates')).status, 200);
    assert.equal((await call(token.token, 'PUT', '/admin/exchange_rates', { rates: { COP: '4100' } })).status, 200);
    const refused = await call(token.token, 'POST', '/admin/merchants', { name: 'not allowed' });
    assert.equal(refused.status, 403);
    assert.match((await refused.json()).description, /lacks the scope this call needs \(merchants\)/);
    await stop();
    const rotated = await caja(['token', 'rotate', '--id', String(token.id), '--json']);
    assert.equal(rotated.code, 0, rotated.stderr);
    const fresh = JSON.parse(rotated.stdout).token as string;
    assert.notEqual(fresh, token.token);
    await start();
    assert.equal((await call(token.token, 'GET', '/admin/exchange_rates')).status, 401);
    assert.equal((await call(fresh, 'GET', '/admin/exchange_rates')).status, 200);
    await stop();
    assert.equal((await caja(['token', 'revoke', '--id', String(token.id)])).code, 0);
    await start();
    assert.equal((await call(fresh, 'GET', '/admin/exchange_rates')).status, 401);
  });
  test('lifecycle: a reset (a new enrolment link; the old password stops), disable and enable, never the last active admin', async () => {
    await stop();
    const made = JSON.parse((await caja(['operator', 'create', '--email', 'ana@ops.example', '--role', 'finance', '--json'])).stdout);
    assert.match((await caja(['operator', 'list'])).stdout, /ana@ops\.example\tfinance\tenrolling/);
    const reset = await caja(['operator', 'reset', '--email', 'ana@ops.example', '--json']);
    assert.equal(reset.code, 0, reset.stderr);
    const link = JSON.parse(reset.stdout).enrolment_link as string;
    assert.notEqual(link, made.enrolment_link);
    assert.doesNotMatch(reset.stdout, /password|secret/);
    const lastAdmin = await caja(['operator', 'disable', '--email', 'root@ops.example']);
    assert.equal(lastAdmin.code, 1);
    assert.match(lastAdmin.stderr, /the last active admin cannot be disabled/);
    assert.equal((await caja(['operator', 'disable', '--email', 'nobody@ops.example'])).code, 1);
    await caja(['operator', 'create', '--email', 'bo@ops.example', '--role', 'support']);
    assert.equal((await caja(['operator', 'disable', '--email', 'bo@ops.example'])).code, 0);
    assert.match((await caja(['operator', 'list'])).stdout, /bo@ops\.example\tsupport\tdisabled/);
    await start();
    // The creation's link was replaced by the reset's.
    assert.equal((await new OpsClient(base).get(new URL(made.enrolment_link).pathname)).status, 404);
    const password = 'ana chose this passphrase';
    const secret = await enrol(link, password);
    const c = new OpsClient(base);
    await c.request('POST', '/ops/login', new URLSearchParams({ email: 'ana@ops.example', password }));
    const page = await c.submit('/ops/login/code', '/ops/login/code', { code: totpCode(secret, new Date(), 1) });
    assert.equal(page.url, '/ops/merchants');
    const bo = await new OpsClient(base).request('POST', '/ops/login', new URLSearchParams({ email: 'bo@ops.example', password: 'whatever' }));
    assert.equal(bo.status, 401);
    await stop();
    assert.equal((await caja(['operator', 'enable', '--email', 'bo@ops.example'])).code, 0);
    assert.doesNotMatch((await caja(['operator', 'list'])).stdout, /bo@ops\.example\tsupport\tdisabled/);
  });
});
