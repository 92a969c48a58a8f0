// docs/notifications.md's verification snippets, run as written: the Node and PHP endpoints get a
// real notification from caja (and answer 2xx) and refuse a forged one; the Python function
// checks a notification caja delivered. The Ruby snippet is not run (no Ruby in CI).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Caja, signNotification } from '../../sdk/src/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { startReceiver } from '../notifications/helpers.ts';

const page = readFileSync('docs/notifications.md', 'utf8');
const block = (lang: string) => {
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(page);
  assert.ok(m, `docs/notifications.md has a ${lang} block`);
  return m[1];
};
const hasPhp = spawnSync('which', ['php']).status === 0;
const hasPython = spawnSync('which', ['python3']).status === 0;

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

async function waitListening(port: number, child: ChildProcess): Promise<void> {
  // A process starting on a machine loaded by other work may take half a minute or more.
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`endpoint exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((r) => {
      const socket = net.connect(port, '127.0.0.1').on('connect', () => { socket.end(); r(true); }).on('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('endpoint did not listen');
}

describe('notification verification snippets', () => {
  let s: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'caja-snippets-'));
  before(async () => {
    s = await startTestServer('pglite', { CAJA_NOTIFY_POLL_MS: '50' }, { workers: true });
  });
  after(() => s.close());

  /** Runs an endpoint, sends it one real notification through caja, then forged ones directly. */
  async function exercise(start: (port: number, m: Credentials) => ChildProcess) {
    const port = await freePort();
    const m = await createMerchant(s.url, 'Snippet', { notification_url: `http://127.0.0.1:${port}/hook` });
    const child = start(port, m);
    try {
      await waitListening(port, child);
      const caja = new Caja({ baseUrl: s.url, deposits: { login: m.deposits.login, secretKey: m.deposits.secret_key } });
      const d = await caja.deposits.create({ country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'IX', payer: { document: cpf('529982247'), first_name: 'A', last_name: 'B', email: 'a@example.com' } });
      await caja.sandbox.deposits.approve(d.deposit_id!);
      let delivered;
      for (let i = 0; i < 600 && !delivered; i++) {
        const { notifications } = await caja.notifications.list({ limit: 10 });
        delivered = notifications?.find((n) => n.status === 'delivered' && n.subject_id === d.deposit_id);
        if (!delivered) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(delivered, 'caja delivered the notification and the endpoint answered 2xx');
      assert.equal(delivered.last_status_code, 200);
      const post = (signature: string, body = '{"deposit_id":1}') =>
        fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Caja-Signature': signature, 'Caja-Notification-Id': '1' }, body });
      assert.equal((await post(signNotification('{"deposit_id":1}', m.deposits.secret_key))).status, 200);
      assert.equal((await post(signNotification('{"deposit_id":1}', 'not-the-secret'))).status, 401);
      assert.equal((await post(signNotification('{"deposit_id":1}', m.deposits.secret_key, Math.floor(Date.now() / 1000) - 3600))).status, 401, 'an old timestamp is refused');
      assert.equal((await post(signNotification('{"deposit_id":1}', m.deposits.secret_key), '{"deposit_id":2}')).status, 401, 'a changed body is refused');
      // During a rotation's overlap caja sends one v1 per valid secret: either may be the one held.
      const t = Math.floor(Date.now() / 1000);
      const v1 = (secret: string) => signNotification('{"deposit_id":1}', secret, t).split(',v1=')[1];
      assert.equal((await post(`t=${t},v1=${v1('the-new-secret-of-a-rotation')},v1=${v1(m.deposits.secret_key)}`)).status, 200, 'the second v1 matches');
      assert.equal((await post(`t=${t},v1=${v1(m.deposits.secret_key)},v1=${v1('the-old-secret')}`)).status, 200, 'the first v1 matches');
      assert.equal((await post(`t=${t},v1=${v1('one')},v1=${v1('two')}`)).status, 401, 'no v1 matches');
    } finally {
      child.kill();
    }
  }

  test('Node', async () => {
    const file = join(dir, 'notify.mjs');
    writeFileSync(file, block('js'));
    await exercise((port, m) => spawn(process.execPath, [file], { env: { ...process.env, PORT: String(port), CAJA_DEPOSITS_SECRET: m.deposits.secret_key }, stdio: 'inherit' }));
  });

  test('PHP', { skip: hasPhp ? false : 'php is not installed (.ci/run installs it)' }, async () => {
    const file = join(dir, 'notify.php');
    writeFileSync(file, block('php'));
    await exercise((port, m) => spawn('php', ['-S', `127.0.0.1:${port}`, file], { env: { ...process.env, CAJA_DEPOSITS_SECRET: m.deposits.secret_key }, stdio: 'ignore' }));
  });

  test('Python', { skip: hasPython ? false : 'python3 is not installed' }, async () => {
    const receiver = await startReceiver();
    try {
      const m = await createMerchant(s.url, 'Snippet Py', { notification_url: `${receiver.url}/hook` });
      const caja = new Caja({ baseUrl: s.url, deposits: { login: m.deposits.login, secretKey: m.deposits.secret_key } });
      const d = await caja.deposits.create({ country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'IX', payer: { document: cpf('529982247'), first_name: 'A', last_name: 'B', email: 'a@example.com' } });
      await caja.sandbox.deposits.approve(d.deposit_id!);
      for (let i = 0; i < 600 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      const got = receiver.received[0];
      assert.ok(got);
      const script = `${block('python')}\nimport os, sys\nprint(verify_caja_signature(os.environ["H"], os.environ["B"].encode(), os.environ["S"]), verify_caja_signature(os.environ["H"], os.environ["B"].encode(), "wrong"), verify_caja_signature(os.environ["H2"], os.environ["B"].encode(), os.environ["S"]), verify_caja_signature("v1=" + "0" * 64, b"{}", "s"))\n`;
      // A rotation's overlap: the header carries the new secret's v1 first, then the held one's.
      const header = String(got.headers['caja-signature']);
      const t = header.split(',')[0]!.slice(2);
      const twoV1 = `t=${t},v1=${signNotification(got.body, 'the-new-secret', Number(t)).split(',v1=')[1]},${header.split(',')[1]}`;
      const { stdout } = await promisify(execFile)('python3', ['-c', script], { env: { ...process.env, H: header, H2: twoV1, B: got.body, S: m.deposits.secret_key } });
      assert.equal(stdout.trim(), 'True False True False');
    } finally {
      await receiver.close();
    }
  });
});
