// DESIGN.md "Compatibility with existing integrations", as existing merchant code and the public
// client libraries send it, over real HTTP. Items covered elsewhere: D24 and hex case
// (auth.test.ts), trailing slash, misspelt idempotency header, escaped slashes and an 18-digit
// JSON number (deposits/create.test.ts), GET /v3/states (lookups.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';

const BR_PAYER = { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };
// What the official SDKs send: no document, no document_type.
const SDK_ACCOUNT = { beneficiary: 'Eva Gómez', bank_code: '012', account_number: '012180001234567899', account_type: 'CHECKING' };
const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

for (const backend of backends()) {
  describe(`compatibility with existing integrations (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Compat');
      v3 = V3Client.deposits(s.url, m);
    });
    after(() => s.close());

    async function completedSpei(amount = 100) {
      const r = await v3.post('/v3/deposits', { country: 'MX', amount, currency: 'MXN', payment_method: 'SE', payer: MX_PAYER });
      assert.equal(r.status, 200, r.text);
      assert.equal((await v3.post(`/v3/sandbox/deposits/${r.body.deposit_id}/approve`, '')).status, 200);
      return r.body.deposit_id as number;
    }

    test('unknown fields are ignored, at the top level and inside objects', async () => {
      const r = await v3.post('/v3/deposits', {
        country: 'BR', amount: '10.00', payment_method: 'IX', sdk_version: '2.1', metadata: { a: 1 },
        payer: { ...BR_PAYER, birth_date: '1990-01-01', address: { street: 'Rua A', number: 12 } },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.checkout_type, 'ONE_SHOT');
      const id = await completedSpei();
      const rf = await v3.post('/v3/refunds', { deposit_id: id, amount: 1, reason: 'x', bank_account: { ...SDK_ACCOUNT, bank_name: 'BBVA' } });
      assert.equal(rf.status, 200, rf.text);
    });

    test('an explicit null means absent, for strings, booleans and objects', async () => {
      const r = await v3.post('/v3/deposits', {
        country: 'BR', amount: '10.00', currency: null, invoice_id: null, payment_method: null, payment_type: null,
        payer: null, test: null, mobile: null, fee_on_payer: null, surcharge_on_payer: null, early_release: null,
        request_payer_data_on_validation_failure: null, reported_info: null, bank_account: null, crypto: null,
        notification_url: null, language: null, client_ip: null, bonus_amount: null,
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.checkout_type, 'HOSTED');
      const g = await v3.get(`/v3/deposits/${r.body.deposit_id}`);
      assert.deepEqual([g.body.amount_currency, g.body.test], ['USD', false]);
      const inner = await v3.post('/v3/deposits', { country: 'BR', amount: 10, payment_method: 'IX', payer: { ...BR_PAYER, id: null, phone: null, address: null } });
      assert.equal(inner.body.checkout_type, 'ONE_SHOT', inner.text);

      const id = await completedSpei();
      const noAccount = await v3.post('/v3/refunds', { deposit_id: id, amount: 1, bank_account: null });
      assert.deepEqual([noAccount.status, noAccount.body.code], [400, 804]);
      const rf = await v3.post('/v3/refunds', {
        deposit_id: id, invoice_id: null, amount: null, comments: null, notification_url: null,
        bank_account: { ...SDK_ACCOUNT, document: null, document_type: null, branch: null },
      });
      assert.equal(rf.status, 200, rf.text);
      assert.equal((await v3.get(`/v3/refunds/${rf.body.refund_id}`)).body.amount, 100, 'null amount: a full refund');
    });

    test('amounts and ids as strings: an 18-digit string amount stays exact; deposit_id as a string', async () => {
      const r = await v3.post('/v3/deposits', { country: 'BR', currency: 'BRL', amount: '123456789012345678.99' });
      assert.equal(r.status, 200, r.text);
      const g = await v3.get(`/v3/deposits/${r.body.deposit_id}`);
      assert.match(g.text, /"amount":123456789012345678\.99[,}]/);
      const id = await completedSpei();
      const rf = await v3.post('/v3/refunds', { deposit_id: String(id), amount: '0.10', bank_account: SDK_ACCOUNT });
      assert.equal(rf.status, 200, rf.text);
      assert.equal((await v3.get(`/v3/refunds/${rf.body.refund_id}`)).body.amount, 0.1);
    });

    test('18-digit amounts stay exact in refunds and exchange rates too', async () => {
      const d = await v3.post('/v3/deposits', { country: 'BR', currency: 'BRL', amount: '123456789012345678.99' });
      // No method takes such an amount, so the sandbox cannot pay it; the operator completes it.
      assert.equal((await admin(s.url, 'POST', `/admin/deposits/${d.body.deposit_id}/complete`, {})).status, 200);
      const account = { beneficiary: 'Ana Silva', bank_code: '1', branch: '1234', account_number: '12345-5', account_type: 'CHECKING' };
      const rf = await v3.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '123456789012345678.97', bank_account: account });
      assert.equal(rf.status, 200, rf.text);
      const g = await v3.get(`/v3/refunds/${rf.body.refund_id}`);
      assert.match(g.text, /"amount":123456789012345678\.97,/);
      assert.match(g.text, /"local_amount":123456789012345678\.97,/);
      assert.equal(g.body.currency, 'BRL');
      const fx = await fetch(`${s.url}/v3/exchange_rates?country=BR&amount=123456789012345678.99`, { headers: { Authorization: `Bearer ${m.read_only_key}` } });
      const text = await fx.text();
      assert.equal(fx.status, 200, text);
      assert.match(text, /"amount":123456789012345678\.99,/);
      assert.match(text, /"converted_amount":\d{18}\.\d{1,2},/, 'not rounded as a double');
    });

    test('\\uXXXX and \\/ escapes: the signature verifies over the raw bytes and the values decode', async () => {
      const raw = '{"country":"BR","amount":"10.00","payment_method":"IX","notification_url":"https:\\/\\/shop.example\\/n",'
        + '"payer":{"document":"529.982.247-25","first_name":"Jo\\u00e3o","last_name":"S\\u00e1","email":"ana@example.com"}}';
      const r = await v3.post('/v3/deposits', raw);
      assert.equal(r.status, 200, r.text);
      const g = await v3.get(`/v3/deposits/${r.body.deposit_id}`);
      assert.deepEqual([g.body.payer.first_name, g.body.payer.last_name], ['João', 'Sá']);
    });

    test('refund bank_account.document is optional, but validated for the deposit country when sent', async () => {
      const id = await completedSpei();
      assert.equal((await v3.post('/v3/refunds', { deposit_id: id, amount: 1, bank_account: SDK_ACCOUNT })).status, 200);
      const bad = await v3.post('/v3/refunds', { deposit_id: id, amount: 1, bank_account: { ...SDK_ACCOUNT, document: '123' } });
      assert.deepEqual([bad.status, bad.body.code], [400, 201]);
      assert.match(bad.body.details[0], /^bank_account\.document: /);
      const good = await v3.post('/v3/refunds', { deposit_id: id, amount: 1, bank_account: { ...SDK_ACCOUNT, document: MX_PAYER.document } });
      assert.equal(good.status, 200, good.text);
    });

    test('ids are integers below 2^31 and dates are exactly YYYY-MM-DD HH:mm:ss', async () => {
      const id = await completedSpei();
      assert.ok(Number.isInteger(id) && id > 0 && id < 2 ** 31);
      const g = await v3.get(`/v3/deposits/${id}`);
      for (const [k, v] of Object.entries(g.body.times)) assert.match(String(v), DATE, `times.${k}`);
      const rf = await v3.post('/v3/refunds', { deposit_id: id, amount: 1, bank_account: SDK_ACCOUNT });
      assert.ok(Number.isInteger(rf.body.refund_id) && rf.body.refund_id > 0 && rf.body.refund_id < 2 ** 31, rf.text);
      const r = await v3.get(`/v3/refunds/${rf.body.refund_id}`);
      assert.match(r.body.created_at, DATE);
      assert.match(r.body.updated_at, DATE);
    });

    test('every v3 error carries a non-2xx status and a {code, description} body', async () => {
      const id = await completedSpei();
      const cases: [string, string, unknown][] = [
        ['POST', '/v3/deposits', ''],
        ['POST', '/v3/deposits', '[]'],
        ['POST', '/v3/deposits', '{"country":'],
        ['POST', '/v3/deposits', { country: 'ZZ', amount: -1 }],
        ['POST', '/v3/refunds', ''],
        ['POST', '/v3/refunds', '[]'],
        ['POST', '/v3/refunds', 'null'],
        ['POST', '/v3/refunds', '{}'],
        ['POST', '/v3/refunds', { deposit_id: {} }],
        ['POST', '/v3/refunds', { deposit_id: 2147483647 }],
        ['POST', '/v3/refunds', { deposit_id: id, amount: 1000 }],
        ['POST', `/v3/sandbox/deposits/${id}/approve`, ''],
        ['GET', '/v3/deposits/2147483647', undefined],
        ['GET', '/v3/refunds/abc', undefined],
        ['GET', '/v3/events?after=x', undefined],
        ['GET', '/v3/no-such-route', undefined],
      ];
      for (const [method, path, body] of cases) {
        const r = await v3.request(method, path, body);
        assert.ok(r.status >= 400 && r.status < 500, `${method} ${path} ${JSON.stringify(body)} → ${r.status} ${r.text}`);
        assert.equal(typeof r.body.code, 'number', r.text);
        assert.equal(typeof r.body.description, 'string', r.text);
      }
    });

    test('refunds: an empty or non-object body is 502 INVALID_REQUEST_BODY, as for deposits; a form content type is 415', async () => {
      for (const body of ['', '[]', 'null', '"x"', '{"deposit_id":']) {
        const r = await v3.post('/v3/refunds', body);
        assert.deepEqual([r.status, r.body.code, r.body.type], [400, 502, 'INVALID_REQUEST_BODY'], `${JSON.stringify(body)} → ${r.text}`);
      }
      // curl -d without -H 'Content-Type: application/json' sends a form content type.
      for (const path of ['/v3/deposits', '/v3/refunds']) {
        const form = await v3.post(path, { country: 'BR', amount: 10, deposit_id: 1 }, { 'Content-Type': 'application/x-www-form-urlencoded' });
        assert.deepEqual([form.status, form.body.code, form.body.description], [415, 502, 'Content-Type must be application/json'], `${path}: ${form.text}`);
      }
      const wrongType = await v3.post('/v3/refunds', { deposit_id: {} });
      assert.deepEqual(wrongType.body.details, ['deposit_id: must be integer or string']);
    });
  });
}
