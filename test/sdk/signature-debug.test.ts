// The signature debugger: in staging a refused signature says what caja computed (string to
// sign, X-Date skew, credential set) so the integrator can diff it with their own, and never
// the key or the expected signature; production says no more than the code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Caja, CajaApiError } from '../../sdk/src/index.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, hmac, type Credentials, V3Client, xDateNow } from '../helpers/clients.ts';

for (const backend of backends()) {
  describe(`signature debugger (${backend})`, () => {
    let staging: TestServer;
    let production: TestServer;
    let m: Credentials;
    let p: Credentials;
    before(async () => {
      staging = await startTestServer(backend);
      production = await startTestServer(backend, { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://caja.example' });
      m = await createMerchant(staging.url, 'Debugging');
      p = await createMerchant(production.url, 'Live');
    });
    after(async () => {
      await staging.close();
      await production.close();
    });

    test('a 102 in staging carries the string to sign, the body hash, the skew and the set; never the key or the expected hash', async () => {
      const body = '{"country":"BR","amount":"10.00","description":"caf\\u00e9 \\/ tab\\t"}';
      const xDate = xDateNow(-42);
      const wrong = new V3Client(staging.url, m.deposits.login, 'a-wrong-secret');
      const r = await wrong.request('POST', '/v3/deposits', body, { 'X-Date': xDate });
      assert.equal(r.status, 400);
      assert.deepEqual([r.body.code, r.body.type], [102, 'INVALID_SIGNATURE']);
      const details: string[] = r.body.details;
      assert.equal(details[0], `string_to_sign: ${JSON.stringify(xDate + m.deposits.login + body)}`);
      assert.match(details[1], new RegExp(`body: ${Buffer.byteLength(body)} bytes, sha256 ${createHash('sha256').update(body).digest('hex')}`));
      const skew = Number(/x_date_skew_seconds: (-?\d+)/.exec(details[2])?.[1]);
      assert.ok(skew >= 41 && skew <= 44, details[2]);
      assert.match(details[3], /^credential_set: deposits /);
      const expected = hmac(m.deposits.secret_key, xDate + m.deposits.login + body);
      for (const secret of [m.deposits.secret_key, expected, expected.toUpperCase(), m.cashouts.secret_key]) assert.ok(!r.text.includes(secret));
    });

    test('the SDK surfaces the lines in CajaApiError.details; v5 names the cashouts set', async () => {
      const c = new Caja({ baseUrl: staging.url, cashouts: { login: m.cashouts.login, pass: m.cashouts.pass, secretKey: 'wrong' } });
      const err = await c.validation.pixKeys(['a@b.co']).then(() => null, (e) => e);
      assert.ok(err instanceof CajaApiError);
      assert.equal(err.code, 102);
      assert.ok(err.details.some((l) => l.startsWith('credential_set: cashouts')), err.details.join('\n'));
    });

    test('a 100 says when the X-Login belongs to the other set', async () => {
      const r = await new V3Client(staging.url, m.cashouts.login, m.cashouts.secret_key).get('/v3/me');
      assert.equal(r.body.code, 100);
      assert.deepEqual(r.body.details, ['credential_set: X-Login is a cashouts.login; this endpoint takes the deposits.login (and deposits.secret_key)']);
      const unknown = await new V3Client(staging.url, 'nobody', 'x').get('/v3/me');
      assert.match(unknown.body.details[0], /not a deposits\.login of any merchant/);
    });

    test('a wrong Payload-Signature says what was hashed, without echoing the body (it holds the pass)', async () => {
      const raw = JSON.stringify({ login: m.cashouts.login, pass: m.cashouts.pass, cashout_id: 1 });
      const r = await fetch(`${staging.url}/v3/cashout/status`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Payload-Signature': hmac('wrong', raw) }, body: raw });
      const body = await r.json();
      assert.equal(body.code, 401);
      assert.match(body.message, new RegExp(`Invalid Payload-Signature \\(staging: .*${Buffer.byteLength(raw)} bytes, sha256 ${createHash('sha256').update(raw).digest('hex')}\\)`));
      assert.ok(!body.message.includes(m.cashouts.pass));
    });

    test('production answers the bare code', async () => {
      const r = await new V3Client(production.url, p.deposits.login, 'wrong').get('/v3/me');
      assert.deepEqual(r.body, { code: 102, description: 'Invalid signature', type: 'INVALID_SIGNATURE' });
      const l = await new V3Client(production.url, p.cashouts.login, p.cashouts.secret_key).get('/v3/me');
      assert.deepEqual(l.body, { code: 100, description: 'Invalid credentials', type: 'INVALID_CREDENTIALS' });
    });
  });
}
