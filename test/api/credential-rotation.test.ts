// Rotating a merchant's credentials without downtime: the replaced values keep working for the
// grace period asked (default 24 h), for every way an integration authenticates (v3 signature,
// read-only key, streamline login and key); notifications are signed with both secrets meanwhile;
// at the end of the overlap, or at once with grace 0, the old values stop.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, bearer, createMerchant, type Credentials, formPost, hmac, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { type Receiver, startReceiver, waitFor } from '../notifications/helpers.ts';
import { CAJA_CLI } from '../helpers/programs.ts';
import { cajaInProcess } from '../helpers/cli.ts';
import { migratedDataDir } from '../helpers/data-dir.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';

const deposit = (n: number) => ({
  invoice_id: `rot-${n}-${Date.now()}`, country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'IX',
  payer: { document: cpf('529982247'), first_name: 'Ana', last_name: 'Lima', email: 'ana@example.com' },
});

/** The v1 values of a Caja-Signature header, and whether one of them is the body's HMAC under `secret`. */
function signedWith(header: string, body: string, secret: string): boolean {
  const [t, ...v1s] = header.split(',');
  const expected = hmac(secret, `${t!.slice(2)}.${body}`);
  return v1s.some((v) => v === `v1=${expected}`);
}

for (const backend of backends()) {
  describe(`credential rotation with an overlap (${backend})`, () => {
    let s: TestServer;
    let receiver: Receiver;
    let n = 0;
    before(async () => {
      receiver = await startReceiver();
      s = await startTestServer(backend, { CAJA_NOTIFY_POLL_MS: '50' }, { workers: true });
    });
    after(async () => {
      await s?.close();
      await receiver?.close();
    });

    const rotate = (m: Credentials, body: Record<string, unknown>) => admin(s.url, 'POST', `/admin/merchants/${m.merchant_id}/rotate`, body);

    test('the replaced deposits credentials work for the grace period; notifications carry a v1 for each secret', async () => {
      const old = await createMerchant(s.url, 'Rotating', { notification_url: `${receiver.url}/hook` });
      const r = await rotate(old, { set: 'deposits' });
      assert.equal(r.status, 200, r.text);
      const until = Date.parse(r.body.previous_valid_until);
      assert.ok(Math.abs(until - (Date.now() + 24 * 3600_000)) < 120_000, `default grace 24 h: ${r.body.previous_valid_until}`);
      const fresh = { ...old, deposits: r.body.deposits };
      assert.notEqual(fresh.deposits.login, old.deposits.login);

      // Both signed with their own secret: both accepted.
      const byOld = await V3Client.deposits(s.url, old).request('POST', '/v3/deposits', deposit(++n));
      assert.equal(byOld.status, 200, byOld.text);
      const byNew = await V3Client.deposits(s.url, fresh).request('POST', '/v3/deposits', deposit(++n));
      assert.equal(byNew.status, 200, byNew.text);
      // A signature of one secret under the other's login is not.
      const crossed = await new V3Client(s.url, old.deposits.login, fresh.deposits.secret_key).request('POST', '/v3/deposits', deposit(++n));
      assert.deepEqual([crossed.status, crossed.body.code], [400, 102], crossed.text);
      // Streamline's login and trans key: the old pair works too.
      const banks = (login: string, key: string) => formPost(s.url, '/api_curl/apd/get_banks_by_country', { x_login: login, x_trans_key: key, country_code: 'BR', type: 'json' });
      const st = await banks(old.deposits.login, old.deposits.trans_key);
      assert.equal(st.status, 200, st.text);
      assert.match(st.text, /"code":"IX"/);
      assert.match((await banks(old.deposits.login, fresh.deposits.trans_key)).text, /Invalid credentials/, 'the new key under the old login is not');

      // The notification of a completed deposit: verifiable with the new secret and with the old.
      const approved = await V3Client.deposits(s.url, fresh).request('POST', `/v3/sandbox/deposits/${byOld.body.deposit_id}/approve`);
      assert.ok(approved.status < 300, approved.text);
      const got = await waitFor('the notification', () => receiver.received.find((x) => x.body.includes(String(byOld.body.deposit_id))));
      const header = String(got.headers['caja-signature']);
      assert.match(header, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      assert.ok(signedWith(header, got.body, fresh.deposits.secret_key), 'the new secret signs');
      assert.ok(signedWith(header, got.body, old.deposits.secret_key), 'the old secret signs');
      assert.equal(header.split(',')[1], `v1=${hmac(fresh.deposits.secret_key, `${header.split(',')[0]!.slice(2)}.${got.body}`)}`, 'the new one first');

      // The merchant sees when the old values stop (GET and the panel alike read it).
      const shown = await admin(s.url, 'GET', `/admin/merchants/${old.merchant_id}`);
      assert.deepEqual(shown.body.credential_overlaps, [{ set: 'deposits', previous_valid_until: r.body.previous_valid_until }]);
    });

    test('at the end of the overlap the old values stop, cached or not; notifications then carry one v1', async () => {
      const old = await createMerchant(s.url, 'Short overlap', { notification_url: `${receiver.url}/short` });
      // 0.001 h = 3.6 s.
      const r = await rotate(old, { set: 'deposits', grace_hours: 0.001 });
      assert.equal(r.status, 200, r.text);
      const fresh = { ...old, deposits: r.body.deposits };
      const byOld = await V3Client.deposits(s.url, old).request('POST', '/v3/deposits', deposit(++n));
      assert.equal(byOld.status, 200, byOld.text);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(r.body.previous_valid_until) - Date.now()) + 200));
      const late = await V3Client.deposits(s.url, old).request('POST', '/v3/deposits', deposit(++n));
      assert.equal(late.status, 401, 'the entry cached a second ago expired with its values');
      const byNew = await V3Client.deposits(s.url, fresh).request('POST', '/v3/deposits', deposit(++n));
      assert.equal(byNew.status, 200, byNew.text);
      await V3Client.deposits(s.url, fresh).request('POST', `/v3/sandbox/deposits/${byNew.body.deposit_id}/approve`);
      const got = await waitFor('the notification', () => receiver.received.find((x) => x.path.startsWith('/short') && x.body.includes(String(byNew.body.deposit_id))));
      const header = String(got.headers['caja-signature']);
      assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/);
      assert.ok(signedWith(header, got.body, fresh.deposits.secret_key));
      assert.deepEqual((await admin(s.url, 'GET', `/admin/merchants/${old.merchant_id}`)).body.credential_overlaps, []);
    });

    test('grace 0 ends the old values at once (a leak); the read-only key and the panel password have no overlap of their own choosing', async () => {
      const old = await createMerchant(s.url, 'Leaked');
      const r = await rotate(old, { set: 'read_only', grace_hours: 0 });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.previous_valid_until, null);
      assert.equal((await bearer(s.url, old.read_only_key, '/v3/banks?country=BR')).status, 401);
      assert.equal((await bearer(s.url, r.body.read_only_key, '/v3/banks?country=BR')).status, 200);
      // The read-only key with the default overlap: both work.
      const again = await rotate(old, { set: 'read_only' });
      assert.equal((await bearer(s.url, r.body.read_only_key, '/v3/banks?country=BR')).status, 200);
      assert.equal((await bearer(s.url, again.body.read_only_key, '/v3/banks?country=BR')).status, 200);
      // A rotation during an overlap drops the older values at once: one previous set is kept.
      const third = await rotate(old, { set: 'read_only' });
      assert.equal((await bearer(s.url, r.body.read_only_key, '/v3/banks?country=BR')).status, 401);
      assert.equal((await bearer(s.url, again.body.read_only_key, '/v3/banks?country=BR')).status, 200);
      assert.equal((await bearer(s.url, third.body.read_only_key, '/v3/banks?country=BR')).status, 200);
      // The panel password is replaced at once whatever is asked.
      const panel = await rotate(old, { set: 'panel', grace_hours: 24 });
      assert.equal(panel.status, 200, panel.text);
      assert.equal(panel.body.previous_valid_until, null);
      for (const bad of [-1, 169, 'x']) {
        const refused = await rotate(old, { set: 'deposits', grace_hours: bad });
        assert.equal(refused.status, 400, `${bad}: ${refused.text}`);
        assert.match(refused.text, /grace_hours/);
      }
    });

    test('the console asks how long the old values keep working and says until when', async () => {
      const m = await createMerchant(s.url, 'Console rotation');
      const ops = await signedIn(s, await makeOperator(s, 'admin', `rotator-${backend}`));
      const page = await ops.get(`/ops/merchants/${m.merchant_id}`);
      assert.match(page.html, /name="grace_hours"/);
      const kept = await ops.submit(`/ops/merchants/${m.merchant_id}`, `/ops/merchants/${m.merchant_id}/rotate`, { set: 'read_only', grace_hours: '24' });
      assert.equal(kept.status, 200);
      assert.match(kept.html, /The old values work until \d{4}-\d\d-\d\dT/);
      assert.equal((await bearer(s.url, m.read_only_key, '/v3/banks?country=BR')).status, 200, 'the old key works during the overlap');
      const leaked = await ops.submit(`/ops/merchants/${m.merchant_id}`, `/ops/merchants/${m.merchant_id}/rotate`, { set: 'read_only', grace_hours: '0' });
      assert.equal(leaked.status, 200);
      assert.doesNotMatch(leaked.html, /The old values work until/);
      const newest = /"read_only_key": "([^"]+)"/.exec(leaked.html.replace(/&quot;/g, '"'))?.[1];
      assert.ok(newest);
      assert.equal((await bearer(s.url, m.read_only_key, '/v3/banks?country=BR')).status, 401);
      assert.equal((await bearer(s.url, newest, '/v3/banks?country=BR')).status, 200);
    });
  });
}

test('`caja merchant rotate --grace-hours` says until when the old values work', async () => {
  const env = { ...process.env, DATA_DIR: await migratedDataDir('caja-cli-rotate-'), DATABASE_URL: '', CAJA_MASTER_KEY: '' };
  const caja = (...args: string[]) => spawnSync(process.execPath, [CAJA_CLI, ...args], { env, encoding: 'utf8' });
  const created = caja('merchant', 'create', '--name', 'Cli Rotate', '--json');
  assert.equal(created.status, 0, created.stderr);
  const id = String(JSON.parse(created.stdout).merchant_id);
  // The rotations run in this process (test/helpers/cli.ts), the creation as the real program.
  const rotated = await cajaInProcess(['merchant', 'rotate', '--id', id, '--set', 'cashouts', '--grace-hours', '2', '--json'], env);
  assert.equal(rotated.code, 0, rotated.stderr);
  const until = Date.parse(JSON.parse(rotated.stdout).previous_valid_until);
  assert.ok(Math.abs(until - (Date.now() + 2 * 3600_000)) < 120_000);
  assert.equal((await cajaInProcess(['merchant', 'rotate', '--id', id, '--set', 'cashouts', '--grace-hours', 'soon'], env)).code, 64);
});
