// The CLI's HTTP commands as a user runs them (the CLI in a child process) against a real
// caja: a saved profile, sign, trigger, deposits get/list, listen forwarding signed events to a
// real endpoint; and what an operator command says when a running caja holds the embedded database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verifyNotification } from '../../sdk/src/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, hmac, type Credentials } from '../helpers/clients.ts';
import { startReceiver, type Receiver } from '../notifications/helpers.ts';
import { CAJA_CLI } from '../helpers/programs.ts';
import { cajaInProcess } from '../helpers/cli.ts';

const home = mkdtempSync(join(tmpdir(), 'caja-cli-home-'));
/** The user's environment: a config home of its own, none of the credential variables, and the
 * embedded database (the suite's DATABASE_URL would put the operator command on PostgreSQL). */
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CAJA_') && k !== 'DATABASE_URL' && k !== 'TEST_DATABASE_URL'));
env.XDG_CONFIG_HOME = home;

/** A command in this process (test/helpers/cli.ts): what most tests here run. */
const caja = (args: string[], extraEnv: Record<string, string> = {}) => cajaInProcess(args, { ...env, ...extraEnv });

/** The same as the real program: the API's refusal (exit 1), the held data directory, `listen`. */
async function cajaProcess(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  // Asynchronous: the server the command talks to runs in this process.
  try {
    const r = await promisify(execFile)(process.execPath, [CAJA_CLI, ...args], { env: { ...env, ...extraEnv } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('caja CLI over HTTP', () => {
  let s: TestServer;
  let m: Credentials;
  let receiver: Receiver;
  before(async () => {
    s = await startTestServer('pglite', { CAJA_NOTIFY_POLL_MS: '50' }, { workers: true });
    m = await createMerchant(s.url, 'CLI Shop');
    receiver = await startReceiver();
    const file = join(home, 'acme.json');
    writeFileSync(file, JSON.stringify(m));
    const saved = await caja(['profile', 'save', '--url', s.url, '--credentials', file]);
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /saved profile 'default'/);
    assert.equal(statSync(join(home, 'caja', 'config.json')).mode & 0o777, 0o600);
  });
  after(async () => {
    await s.close();
    await receiver.close();
  });

  test('profile show names the merchant without printing secrets', async () => {
    const r = await caja(['profile', 'show']);
    assert.equal(JSON.parse(r.stdout).deposits_login, m.deposits.login);
    assert.ok(!r.stdout.includes(m.deposits.secret_key));
  });

  test('sign prints the string to sign and the headers; --payload the cashout signature', async () => {
    const body = '{"country":"BR","amount":"10.00"}';
    const r = await caja(['sign', '--body', body, '--date', '2026-11-23T12:00:00Z']);
    const expected = hmac(m.deposits.secret_key, `2026-11-23T12:00:00Z${m.deposits.login}${body}`);
    assert.equal(r.stdout, [
      `string_to_sign: ${JSON.stringify(`2026-11-23T12:00:00Z${m.deposits.login}${body}`)}`,
      'X-Date: 2026-11-23T12:00:00Z', `X-Login: ${m.deposits.login}`, `Authorization: SVC ${expected}`, '',
    ].join('\n'));
    const p = await caja(['sign', '--set', 'cashouts', '--payload', '--body', body]);
    assert.match(p.stdout, new RegExp(`Payload-Signature: ${hmac(m.cashouts.secret_key, body)}\\n$`));
  });

  test('trigger drives each sandbox outcome; deposits get and list read them', async () => {
    const completed = await caja(['trigger', 'deposit.completed']);
    assert.equal(completed.code, 0, completed.stderr);
    const id = /deposit (\d+) created/.exec(completed.stdout)![1];
    assert.equal(JSON.parse((await caja(['deposits', 'get', id])).stdout).status, 'COMPLETED');
    const cancelled = await caja(['trigger', 'deposit.cancelled']);
    assert.match(cancelled.stdout, /CANCELLED/);
    const refund = await caja(['trigger', 'refund.completed']);
    assert.match(refund.stdout, /^refund \d+ of 10\.00 BRL on deposit \d+ completed/m);
    const cashout = await caja(['trigger', 'cashout.rejected']);
    assert.equal(cashout.code, 0, cashout.stderr);
    assert.match(cashout.stdout, /cashout \d+ .* rejected/);
    const list = await caja(['deposits', 'list', '--limit', '2']);
    const lines = list.stdout.trim().split('\n');
    assert.equal(lines.length, 3, list.stdout);
    assert.match(lines[2], /^more: caja deposits list --limit 2 --before \d+$/);
    assert.ok(Number(lines[0].split('\t')[0]) > Number(lines[1].split('\t')[0]), 'newest first');
    const bad = await caja(['trigger', 'deposit.exploded']);
    assert.equal(bad.code, 64);
    const wrong = await cajaProcess(['deposits', 'get', '1'], { CAJA_LOGIN: m.deposits.login, CAJA_SECRET: 'wrong' });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /caja answered 400: 102 Invalid signature\n {2}string_to_sign: /);
  });

  test('listen forwards each new event signed as caja signs notifications, one line each', async () => {
    const child = spawn(process.execPath, [CAJA_CLI, 'listen', '--forward-to', `${receiver.url}/hook`, '--interval', '100'], { env });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    const until = async (what: () => boolean) => {
      for (let i = 0; i < 1200 && !what(); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(what(), stdout);
    };
    try {
      await until(() => stdout.includes('Ready:'));
      receiver.received.length = 0;
      const t = await caja(['trigger', 'deposit.completed']);
      const id = Number(/deposit (\d+) created/.exec(t.stdout)![1]);
      const line = new RegExp(`deposit\\.status_changed  deposit ${id} COMPLETED  \\{"deposit_id":${id}\\}  -> 200 \\(\\d+ ms\\)`);
      await until(() => line.test(stdout));
      const got = receiver.received.find((r) => r.headers['caja-event-type'] === 'deposit.status_changed' && r.body === JSON.stringify({ deposit_id: id }));
      assert.ok(got, 'the deposit event was forwarded');
      verifyNotification(got.body, got.headers['caja-signature'] as string, m.deposits.secret_key);
    } finally {
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
    }
    assert.match(stdout, /stopped; resume with: caja listen --forward-to \S+ --after \d+\n$/);
  });

  test('an operator command on an embedded database held by a running process says what to do', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'caja-cli-held-'));
    // This test process is alive: as far as the lock is concerned, it is the running server.
    writeFileSync(join(dataDir, 'caja.pid'), String(process.pid));
    const r = await cajaProcess(['merchant', 'show', '--id', '1'], { DATA_DIR: dataDir });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`in use by process ${process.pid} \\(a running caja\\)`));
    assert.match(r.stderr, /stop that process/);
    assert.match(r.stderr, /HTTP commands of this CLI/);
    assert.match(r.stderr, /DATABASE_URL/);
  });
});
