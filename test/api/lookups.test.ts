import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, bearer, createMerchant, type Credentials } from '../helpers/clients.ts';

for (const backend of backends()) {
  describe(`lookups (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Lookups');
    });
    after(() => s.close());

    test('banks: real codes for BR, 401/101 without a valid read-only key', async () => {
      const r = await bearer(s.url, m.read_only_key, '/v3/banks?country=BR');
      assert.equal(r.status, 200);
      const byCode = new Map(r.body.map((b: { code: number; name: string }) => [b.code, b.name]));
      assert.match(String(byCode.get(1)), /Brasil/);
      assert.match(String(byCode.get(341)), /Ita/);
      assert.equal(typeof r.body[0].code, 'number');
      assert.equal((await bearer(s.url, 'ro_wrong', '/v3/banks?country=BR')).status, 401);
      const none = await fetch(`${s.url}/v3/banks?country=BR`);
      assert.equal(((await none.json()) as any).code, 101);
      // A deposits secret is not a read-only key.
      assert.equal((await bearer(s.url, m.deposits.secret_key, '/v3/banks?country=BR')).status, 401);
    });

    test('an unknown or missing country is a 201 listing the accepted values', async () => {
      const r = await bearer(s.url, m.read_only_key, '/v3/banks?country=US');
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 201);
      assert.match(r.body.details[0], /^country: must be one of AR, BR, CL, .*ZA$/);
      const missing = await bearer(s.url, m.read_only_key, '/v3/banks');
      assert.deepEqual([missing.status, missing.body.code], [400, 201]);
      const lower = await bearer(s.url, m.read_only_key, '/v3/banks?country=mx');
      assert.equal(lower.status, 200);
    });

    test('payment methods carry the catalog codes and logos that resolve', async () => {
      const r = await bearer(s.url, m.read_only_key, '/v3/payment_methods?country=BR');
      assert.equal(r.status, 200);
      const pix = r.body.find((p: any) => p.code === 'IX');
      assert.ok(pix, 'Pix is listed');
      assert.equal(pix.currency, 'BRL');
      assert.ok(pix.required_fields.includes('payer.document'));
      const logo = await fetch(pix.logo);
      assert.equal(logo.status, 200);
      assert.match(logo.headers.get('content-type') ?? '', /svg/);
      const mx = await bearer(s.url, m.read_only_key, '/v3/payment_methods?country=MX');
      assert.deepEqual(['OX', 'SE'].filter((c) => mx.body.some((p: any) => p.code === c)), ['OX', 'SE']);
    });

    test('states list codes', async () => {
      const r = await bearer(s.url, m.read_only_key, '/v3/states?country=BR');
      assert.equal(r.body.length, 27);
      assert.deepEqual(r.body.find((st: any) => st.code === 'SP'), { code: 'SP', iso: 'SP', name: 'São Paulo' });
    });

    test('exchange rates convert exactly and follow the admin table', async () => {
      const put = await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { BRL: '5.4321' } });
      assert.equal(put.status, 200);
      assert.equal(put.body.rates.BRL, '5.4321');
      const r = await bearer(s.url, m.read_only_key, '/v3/exchange_rates?country=BR&amount=100.01');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { country: 'BR', currency: 'BRL', fx_rate: 5.4321, amount: 100.01, converted_amount: 543.26, converted_amount_text: '543.26', fee: 1.5 });
      const ec = await bearer(s.url, m.read_only_key, '/v3/exchange_rates?country=EC&amount=10');
      assert.equal(ec.body.currency, 'USD');
      assert.equal(ec.body.converted_amount, 10);
      const bad = await bearer(s.url, m.read_only_key, '/v3/exchange_rates?country=XX&amount=1.234');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.details.length, 2, bad.text);
      assert.match(bad.body.details[0], /^country: must be one of (?:[A-Z]{2}, )+[A-Z]{2}$/);
      assert.ok(!/\bXX\b/.test(bad.body.details[0]) && /\bBR\b/.test(bad.body.details[0]), bad.body.details[0]);
      assert.equal(bad.body.details[1], 'amount: must be a decimal number with at most 2 decimals');
      const badRate = await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { BRL: '-1', XYZ: '2', USD: '1' } });
      assert.equal(badRate.status, 400);
      assert.deepEqual(badRate.body.details, ['rates.BRL: must be a positive decimal with at most 8 decimals', 'rates.XYZ: not an ISO 4217 currency', 'rates.USD: is always 1']);
    });
  });
}
