// Honest refusals in production (issue 38 §5), driven over HTTP with the Pix and STP simulators:
//   - a cashout for a country no payout network serves is refused at creation (300, naming the
//     country and what is served), with nothing reserved and no row; MX with STP is accepted;
//   - a ONE_SHOT deposit the customer limits refuse (304) never creates a charge at the PSP;
//   - a notification URL production can never call (loopback, private, link-local) is refused
//     when it is set: merchants (admin API, panel, CLI), deposits, cashouts (one rule for every face);
//   - the operator console answers a database outage with 503 and Retry-After.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, postgresUrl, startTestServer, type TestServer } from '../helpers/server.ts';
import { migratedScratchDatabase } from '../helpers/pg-template.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { admin, cashoutRequest, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { cpf } from '../helpers/documents.ts';
import { buildClabe } from '../../src/domain/clabe.ts';
import { PanelClient } from '../panel/helpers.ts';
import { migratedDataDir } from '../helpers/data-dir.ts';
import { CAJA_CLI } from '../helpers/programs.ts';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setRates, fundMerchant } from '../helpers/four-eyes.ts';

const BENEFICIARY_CLABE = buildClabe('012', '180', '00123456789');
const PAYER = { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
const UNCALLABLE = ['https://127.0.0.1/n', 'https://localhost/n', 'https://10.1.2.3/n', 'https://192.168.0.7:8443/n', 'https://169.254.169.254/latest', 'https://[::1]/n', 'https://[fd00::5]/n', 'https://0x7f.1/n', 'https://api.localhost/n'];

for (const backend of backends()) {
  describe(`honest refusals in production (${backend})`, () => {
    let stp: StpSimulator;
    let pix: PixSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;

    before(async () => {
      [stp, pix] = await Promise.all([startStpSimulator(), startPixSimulator()]);
      s = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '3000', CAJA_CACHE_SECONDS: '0' });
      await stp.control.receiver(s.url);
      await setRates(s, { MXN: '18.00', BRL: '5.00' });
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/stp', stp.config)).status, 200);
      const put = await admin(s.url, 'PUT', '/admin/connectors/pix', pix.config);
      assert.equal(put.status, 200, put.text);
      m = await createMerchant(s.url, 'Refusals shop');
      v3 = V3Client.deposits(s.url, m);
      await fundMerchant(s, m.merchant_id, '1000.00', 'USD', 'test funding');
    });

    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
      await Promise.all([stp.stop(), pix.stop()]);
    });

    const balance = async () => (await v3.get('/v3/balance')).body;
    const cashouts = async () => Number((await s.ctx.db.query<{ n: string }>('SELECT count(*) AS n FROM cashouts WHERE merchant_id = $1', [m.merchant_id])).rows[0]!.n);

    test('a cashout to a country no payout network serves is refused at creation, naming it; nothing reserved', async () => {
      const before = await balance();
      const rowsBefore = await cashouts();
      const r = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
        external_id: `br-${backend}`, country: 'BR', currency: 'USD', amount: '10.00', document_id: cpf('529982247'),
        beneficiary_name: 'Maria', beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
      });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.code, 300);
      assert.match(r.body.message, /country: no payout provider pays cashouts to BR here; cashouts are paid to: MX/);
      assert.deepEqual(await balance(), before, 'nothing reserved');
      assert.equal(await cashouts(), rowsBefore, 'no cashout row');
      // The same external_id is free for a cashout that can be paid.
      const mx = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
        external_id: `br-${backend}`, country: 'MX', currency: 'MXN', amount: '180.00', document_id: 'GODE561231GR8', beneficiary_name: 'Eva',
        beneficiary_lastname: 'Gómez', bank_code: '12', bank_account: BENEFICIARY_CLABE, account_type: 'C', on_hold: true,
      });
      assert.equal(mx.status, 200, mx.text);
      assert.equal(await cashouts(), rowsBefore + 1);
      const cancel = await cashoutRequest(s.url, m, 'DELETE', '/v3/cashout/cancel', { cashout_id: mx.body.cashout_id, external_id: `br-${backend}` });
      assert.equal(cancel.status, 200, cancel.text);
    });

    const pixBody = (amount: string, userId: string) => ({
      country: 'BR', amount, currency: 'BRL', payment_method: 'IX', invoice_id: `lim-${backend}-${++n}-${Date.now()}`, payer: { ...PAYER, id: userId },
    });
    const cobs = async () => (await pix.state()).cobs.length;

    test('a ONE_SHOT deposit over a per-transaction customer limit creates no charge at the PSP', async () => {
      const put = await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'BR', per_transaction: '10' });
      assert.equal(put.status, 200, put.text);
      try {
        const before = await cobs();
        const r = await v3.post('/v3/deposits', pixBody('100.00', `tx-${backend}`));
        assert.equal(r.status, 400, r.text);
        assert.deepEqual([r.body.code, r.body.type], [304, 'USER_LIMIT_EXCEEDED']);
        assert.equal(await cobs(), before, 'no charge was created at the PSP');
        const ok = await v3.post('/v3/deposits', pixBody('25.00', `tx-${backend}`));
        assert.equal(ok.status, 200, ok.text);
        assert.equal(await cobs(), before + 1);
      } finally {
        await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'BR' });
      }
    });

    test('a ONE_SHOT deposit over a daily customer limit creates no charge at the PSP', async () => {
      const put = await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'BR', daily: '30' });
      assert.equal(put.status, 200, put.text);
      try {
        const user = `daily-${backend}`;
        const first = await v3.post('/v3/deposits', pixBody('100.00', user));
        assert.equal(first.status, 200, first.text);
        const before = await cobs();
        const r = await v3.post('/v3/deposits', pixBody('100.00', user));
        assert.equal(r.status, 400, r.text);
        assert.deepEqual([r.body.code, r.body.type], [304, 'USER_LIMIT_EXCEEDED']);
        assert.equal(r.body.description, 'User limit exceeded: DAILY');
        assert.equal(await cobs(), before, 'no charge was created at the PSP');
      } finally {
        await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'BR' });
      }
    });

    test('concurrent ONE_SHOT deposits of one customer under a daily limit: a live charge for each accepted one only', async () => {
      const put = await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'BR', daily: '50' });
      assert.equal(put.status, 200, put.text);
      try {
        const seen = (await pix.state()).cobs.length;
        const user = `race-${backend}`;
        // A customer of their own (user id and document): the deposits above count for theirs.
        const body = () => { const b = pixBody('100.00', user); return { ...b, payer: { ...b.payer, document: cpf('222333444') } }; };
        const answers = await Promise.all(Array.from({ length: 6 }, () => v3.post('/v3/deposits', body())));
        assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 400, 400, 400, 400], answers.map((a) => a.text).join('\n'));
        for (const a of answers.filter((x) => x.status === 400)) assert.equal(a.body.code, 304, a.text);
        const made = (await pix.state()).cobs.slice(seen);
        // A charge made for a deposit the limit then refused (the room taken meanwhile) was withdrawn.
        assert.equal(made.filter((c) => c.status === 'ATIVA').length, 2, JSON.stringify(made.map((c) => c.status)));
      } finally {
        await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'BR' });
      }
    });

    test('a notification URL production can never call is refused when it is set', async () => {
      for (const url of UNCALLABLE) {
        const created = await admin(s.url, 'POST', '/admin/merchants', { name: 'Internal', notification_url: url });
        assert.equal(created.status, 400, `${url}: ${created.text}`);
        assert.match(created.body.details.join('\n'), /notification_url: .*(loopback|private|link-local|unique local|not a public address)/, url);
        const patched = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { notification_url: url });
        assert.equal(patched.status, 400, `${url}: ${patched.text}`);
        const dep = await v3.post('/v3/deposits', { ...pixBody('10.00', 'n'), notification_url: url });
        assert.equal(dep.status, 400, `${url}: ${dep.text}`);
        assert.match(dep.body.details.join('\n'), /notification_url: /, url);
        const co = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
          external_id: `n-${backend}-${++n}`, country: 'MX', currency: 'MXN', amount: '18.00', document_id: 'GODE561231GR8', beneficiary_name: 'Eva',
          bank_code: '12', bank_account: BENEFICIARY_CLABE, account_type: 'C', notification_url: url,
        });
        assert.equal(co.status, 400, `${url}: ${co.text}`);
        assert.match(co.body.message, /notification_url: /, url);
      }
      // The merchant's own panel: the URL form refuses it and keeps the setting.
      const panel = new PanelClient(s.url);
      assert.equal((await panel.signIn(m.panel.email, m.panel.password)).url, '/panel');
      const csrf = /name="csrf" value="([^"]+)"/.exec((await panel.get('/panel/settings/api')).html)![1]!;
      const saved = await panel.request('POST', '/panel/settings/urls', new URLSearchParams({ csrf, notification_url: 'https://10.0.0.8/hook', return_url: '', logo_url: '' }));
      assert.match(saved.html, /must reach a public address in production: 10\.0\.0\.8 is private/);
      assert.equal((await admin(s.url, 'GET', `/admin/merchants/${m.merchant_id}`)).body.notification_url, null);
      // The CLI on the same database (a scratch data directory of its own).
      const dataDir = await migratedDataDir('caja-refusals-cli-');
      const cli = spawnSync(process.execPath, [CAJA_CLI, 'merchant', 'create', '--name', 'Cli', '--notification-url', 'https://169.254.169.254/n'], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', CAJA_ENV: 'production', CAJA_MASTER_KEY: randomBytes(32).toString('base64'), CAJA_ADMIN_TOKEN: 'x'.repeat(20) }, encoding: 'utf8',
      });
      assert.equal(cli.status, 64, cli.stderr);
      assert.match(cli.stderr, /--notification-url must reach a public address in production: 169\.254\.169\.254 is link-local/);
      const ok = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { notification_url: 'https://93.184.216.34/n' });
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await admin(s.url, 'POST', '/admin/merchants', { name: 'Public', notification_url: 'https://shop.example/n' })).status, 201);
    });
  });
}

// The rule every face applies when a URL is set (admin API, console, panel, CLI, v3, streamline).
describe('URLs production can never reach (unit)', () => {
  test('refused in production in every spelling, accepted in staging on loopback as before', async () => {
    const { checkCallbackUrl } = await import('../../src/domain/urls.ts');
    const { capabilitiesOf } = await import('../../src/config/config.ts');
    for (const url of [...UNCALLABLE, 'https://2130706433/n', 'https://[::ffff:127.0.0.1]/n', 'https://[::127.0.0.1]/n', 'https://100.64.0.1/n', 'https://0.0.0.0/n']) {
      assert.match(checkCallbackUrl(url, capabilitiesOf('production')) ?? '', /must reach a public address in production: .* not a public address/, url);
    }
    for (const url of ['https://shop.example/n', 'https://93.184.216.34/n', 'https://[2606:2800:220:1:248:1893:25c8:1946]/n']) assert.equal(checkCallbackUrl(url, capabilitiesOf('production')), null, url);
    for (const url of ['https://127.0.0.1/n', 'http://localhost:3000/n', 'https://10.1.2.3/n']) assert.equal(checkCallbackUrl(url, capabilitiesOf('staging')), null, url);
  });
});

// The console answers a database outage like every other face: 503 with Retry-After, not 500.
describe('the operator console during a database outage (pg, through a TCP proxy)', { skip: postgresUrl() ? false : 'needs DATABASE_URL (PostgreSQL)' }, () => {
  let db: { url: string; drop: () => Promise<void> };
  let proxy: TcpProxy;
  let s: TestServer;
  before(async () => {
    db = await migratedScratchDatabase(postgresUrl()!);
    const target = new URL(db.url);
    proxy = await new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) }).start();
    const through = new URL(db.url);
    through.host = `127.0.0.1:${proxy.port}`;
    s = await startTestServer('pglite', { DATABASE_URL: through.toString(), CAJA_DB_CONNECT_TIMEOUT_MS: '500', CAJA_DB_QUERY_TIMEOUT_MS: '1000', CAJA_DB_STATEMENT_TIMEOUT_MS: '800', CAJA_DB_HOLD_MS: '500', CAJA_CACHE_SECONDS: '0' });
  });
  after(async () => {
    await s?.close();
    await proxy?.close();
    await db?.drop();
  });

  test('a console page with a session cookie, the sign-in post: 503 with Retry-After, in HTML', async () => {
    await proxy.close();
    for (const send of [
      () => fetch(`${s.url}/ops`, { headers: { cookie: `caja_ops=${'a'.repeat(43)}` }, redirect: 'manual' }),
      () => fetch(`${s.url}/ops/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a%40example.com&password=x', redirect: 'manual' }),
    ]) {
      const r = await send();
      assert.equal(r.status, 503, await r.clone().text());
      assert.equal(r.headers.get('retry-after'), '2');
      assert.match(r.headers.get('content-type') ?? '', /text\/html/);
      assert.match(await r.text(), /try again/i);
    }
  });
});
