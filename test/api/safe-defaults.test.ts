// Safe defaults: no response with credentials or payment data is cached; production behind TLS
// sends HSTS; the return page has the same nonce CSP and frame-ancestors as every other page;
// loopback and private notification destinations are classified whatever their spelling, and
// caja never records what such a destination answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, bearer, cashoutRequest, createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';
import { refuseAddress, resolveTarget } from '../../src/notifications/address-guard.ts';
import { commitEvent, FAST_ENV, notificationIdOf, startReceiver, statusOf, waitFor } from '../notifications/helpers.ts';

describe('safe defaults (staging)', () => {
  let s: TestServer;
  let m: Credentials;
  before(async () => {
    s = await startTestServer('pglite', FAST_ENV, { workers: true });
    m = await createMerchant(s.url, 'Defaults', { return_url: 'https://shop.example/back' });
  });
  after(() => s.close());

  test('Cache-Control: no-store on API, admin, cashout, streamline, lookups and pages; no HSTS in staging', async () => {
    const v3 = V3Client.deposits(s.url, m);
    const d = await v3.post('/v3/deposits', { country: 'MX', amount: '100', currency: 'MXN', payment_method: 'SE', payer: { email: 'a@example.com', first_name: 'A', last_name: 'B' } });
    const responses = [
      d,
      await v3.get('/v3/me'),
      await v3.get('/v3/deposits/99999'),
      await admin(s.url, 'GET', `/admin/merchants/${m.merchant_id}`),
      await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id: 1 }),
      await formPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: 'x', type: 'JSON' }),
      await bearer(s.url, m.read_only_key, '/v3/payment_methods?country=BR'),
    ];
    for (const r of responses) {
      assert.equal(r.headers.get('cache-control'), 'no-store', r.text.slice(0, 80));
      assert.equal(r.headers.get('strict-transport-security'), null);
    }
    const page = await fetch(d.body.redirect_url);
    assert.equal(page.headers.get('cache-control'), 'no-store');
  });

  test('the return page: nonce CSP, never framed, the form may post only to the merchant', async () => {
    const v3 = V3Client.deposits(s.url, m);
    const d = await v3.post('/v3/deposits', { country: 'MX', amount: '100', currency: 'MXN', payment_method: 'SE', payer: { email: 'a@example.com', first_name: 'A', last_name: 'B' } });
    const token = new URL(d.body.redirect_url).pathname.split('/').pop();
    const r = await fetch(`${s.url}/return/${token}`);
    assert.equal(r.status, 200);
    const csp = r.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce, csp);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /form-action https:\/\/shop\.example/);
    assert.equal(r.headers.get('x-frame-options'), 'DENY');
    const html = await r.text();
    assert.ok(html.includes(`<script nonce="${nonce}">document.forms[0].submit()</script>`));
    assert.doesNotMatch(html, /onload=/);
  });

  test('loopback spelled any way is loopback; names resolving to private addresses are private', async () => {
    for (const host of ['[::127.0.0.1]', '[::ffff:127.0.0.1]', '0x7f.1', '2130706433', '0177.0.0.1']) {
      await assert.rejects(resolveTarget(`https://${host}/n`, 'strict'), /loopback/, host);
    }
    assert.ok(refuseAddress('::10.0.0.1', 'strict'));
    assert.ok(refuseAddress('::a9fe:a9fe', 'relaxed'), 'IPv4-compatible 169.254.169.254');
    for (const address of ['10.1.2.3', '192.168.0.7', 'fd00::5', '127.0.0.1']) {
      await assert.rejects(resolveTarget('https://internal.example/n', 'strict', async () => [{ address, family: address.includes(':') ? 6 : 4 }]), /refused/, address);
    }
  });

  test('a loopback destination in staging: status and timing recorded, never its answer', async () => {
    const internal = await startReceiver();
    internal.respond = () => ({ status: 200, body: 'INTERNAL-SERVICE-SECRET {"db_password":"hunter2"}' });
    try {
      const { eventId } = await commitEvent(s.ctx, { merchantId: m.merchant_id, url: `${internal.url}/admin` });
      const id = await notificationIdOf(s.ctx, eventId);
      await waitFor('delivery', async () => (await statusOf(s.ctx, id)) === 'delivered');
      const seen = await V3Client.deposits(s.url, m).get(`/v3/notifications/${id}`);
      assert.equal(seen.status, 200, seen.text);
      assert.doesNotMatch(seen.text, /INTERNAL-SERVICE-SECRET|hunter2/);
      const attempt = seen.body.attempts[0];
      assert.equal(attempt.status_code, 200);
      assert.equal(typeof attempt.latency_ms, 'number');
      assert.equal(attempt.response_excerpt, null);
    } finally {
      await internal.close();
    }
  });
});

describe('safe defaults (production behind TLS)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('pglite', { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com' });
  });
  after(() => s.close());

  test('HSTS and no-store on every answer', async () => {
    for (const path of ['/health', '/v3/me', '/admin/merchants/1']) {
      const r = await fetch(s.url + path);
      assert.equal(r.headers.get('strict-transport-security'), 'max-age=31536000; includeSubDomains', path);
      assert.equal(r.headers.get('cache-control'), 'no-store', path);
    }
  });
});
