// POST /v5/account/validate as a merchant calls it: cashouts-key signature, feature switch, the
// spec's checks in order, 302 naming the failed check, staging's simulated registry.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { clabeCheckDigit } from '../../src/domain/clabe.ts';

const ITAU = { bank_code: '341', branch: '2545', account: '02366-1', account_type: 'C' };
const BR = { country: 'BR', document: '529.982.247-25', first_name: 'Maria', last_name: 'Souza' };
/** A well-formed CLABE (check digit computed) whose account part ends as the test needs. */
const clabe = (bank: string, account11: string) => `${bank}180${account11}${clabeCheckDigit(`${bank}180${account11}`)}`;

for (const backend of backends()) {
  describe(`v5 account validation (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v5: V3Client;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Payouts');
      v5 = V3Client.cashouts(s.url, m);
    });
    after(() => s.close());

    const validate = (body: unknown) => v5.post('/v5/account/validate', body);

    test('a valid account answers 204 with no body', async () => {
      const r = await validate({ ...BR, bank_account: ITAU });
      assert.equal(r.status, 204, r.text);
      assert.equal(r.text, '');
      const mx = await validate({ country: 'MX', document: 'GODE561231GR8', bank_account: { account: '032180000118359719', bank_code: '40032' } });
      assert.equal(mx.status, 204, mx.text);
      const ar = await validate({ country: 'AR', document: '20-12345678-6', bank_account: { account: '2850590940090418135201' } });
      assert.equal(ar.status, 204, ar.text);
      // SDKs send codes and agencies as JSON numbers, and the one-letter or long account type.
      const numeric = await validate({ ...BR, bank_account: { ...ITAU, bank_code: 341, branch: 2545, account_type: 'CHECKING' } });
      assert.equal(numeric.status, 204, numeric.text);
    });

    test('v5 auth: the cashouts key signs; the deposits key is not a v5 login', async () => {
      const deposits = V3Client.deposits(s.url, m);
      const r = await deposits.post('/v5/account/validate', { ...BR, bank_account: ITAU });
      assert.deepEqual([r.status, r.body.code], [401, 100]);
      const unsigned = await fetch(`${s.url}/v5/account/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(unsigned.status, 400);
      assert.equal(((await unsigned.json()) as any).code, 101);
    });

    test('302 names the failed check: format, check_digit, unknown_bank', async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ ...BR, bank_account: { ...ITAU, account: '02366-2' } }, 'check_digit', 'bank_account.account'],
        [{ ...BR, bank_account: { ...ITAU, branch: '12345678' } }, 'format', 'bank_account.branch'],
        [{ ...BR, bank_account: { ...ITAU, bank_code: '999' } }, 'unknown_bank', 'bank_account.bank_code'],
        [{ ...BR, bank_account: { ...ITAU, account_type: 'X' } }, 'format', 'bank_account.account_type'],
        [{ country: 'MX', document: 'GODE561231GR8', bank_account: { account: '032180000118359718' } }, 'check_digit', 'bank_account.account'],
        [{ country: 'MX', document: 'GODE561231GR8', bank_account: { account: clabe('998', '00012345678') } }, 'unknown_bank', 'bank_account.account'],
        [{ country: 'AR', document: '20-12345678-6', bank_account: { account: '2850590940090418135202' } }, 'check_digit', 'bank_account.account'],
        [{ country: 'CO', document: '1020304050', bank_account: { account: '12' } }, 'format', 'bank_account.account'],
      ];
      for (const [body, check, field] of cases) {
        const r = await validate(body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.code, 302, r.text);
        assert.equal(r.body.type, 'INVALID_BANK_ACCOUNT');
        assert.equal(r.body.description, `Invalid bank account: ${check}`, r.text);
        assert.match(r.body.details[0], new RegExp(`^${field.replace('.', '\\.')}: `), r.text);
      }
    });

    test('staging registry magic values: not found, holder mismatch, cannot receive', async () => {
      const mx = (account11: string) => ({ country: 'MX', document: 'GODE561231GR8', bank_account: { account: clabe('012', account11) } });
      const expect = [['00001230000', 'account_not_found'], ['00001231111', 'holder_mismatch'], ['00001232222', 'cannot_receive_funds']];
      for (const [digits, check] of expect) {
        const r = await validate(mx(digits!));
        assert.deepEqual([r.status, r.body.code, r.body.description], [400, 302, `Invalid bank account: ${check}`], r.text);
      }
      assert.equal((await validate(mx('00001233333'))).status, 204);
      // Brazil: the digits before the check digit (Banco do Brasil 10000-X) end in 0000.
      const bb = await validate({ ...BR, bank_account: { bank_code: '001', account: '10000-5' } });
      assert.deepEqual([bb.body.code, bb.body.description], [302, 'Invalid bank account: account_not_found'], bb.text);
    });

    test('checks run in the spec order: document, format, existence, holder, amount, can receive', async () => {
      const badDoc = await validate({ ...BR, document: '529.982.247-24', bank_account: { ...ITAU, account: '02366-2' } });
      assert.deepEqual([badDoc.status, badDoc.body.code, badDoc.body.type], [400, 300, 'INVALID_DOCUMENT'], badDoc.text);
      assert.match(badDoc.body.details[0], /^document: invalid CPF check digits/);
      // Holder mismatch comes before the amount, the amount before "cannot receive".
      const mx = (account11: string, amount: unknown) => ({ country: 'MX', document: 'GODE561231GR8', amount, currency: 'MXN', bank_account: { account: clabe('012', account11) } });
      assert.equal((await validate(mx('00001231111', '9999999'))).body.description, 'Invalid bank account: holder_mismatch');
      const tooMuch = await validate(mx('00001232222', '9999999'));
      assert.deepEqual([tooMuch.status, tooMuch.body.code], [400, 201], tooMuch.text);
      assert.match(tooMuch.body.details[0], /^amount: must be within 10 to 500000 MXN/);
    });

    test('amount only when sent, at most 2 decimals, USD by default, converted to local', async () => {
      const body = (extra: Record<string, unknown>) => ({ ...BR, ...extra, bank_account: ITAU });
      assert.equal((await validate(body({ amount: 100 }))).status, 204, 'USD 100 is within Pix/TED limits');
      assert.equal((await validate(body({ amount: '100.5', currency: 'BRL' }))).status, 204);
      const tiny = await validate(body({ amount: '0.01', currency: 'BRL' }));
      assert.deepEqual([tiny.status, tiny.body.code], [400, 201], tiny.text);
      const decimals = await validate(body({ amount: '10.123' }));
      assert.deepEqual([decimals.body.code, decimals.body.details], [201, ['amount: must be a decimal number with at most 2 decimals']]);
      const negative = await validate(body({ amount: '-5' }));
      assert.equal(negative.body.code, 201);
      const eur = await validate(body({ amount: 10, currency: 'EUR' }));
      assert.deepEqual([eur.body.code, eur.body.details], [201, ['currency: must be USD or BRL']]);
    });

    test('bad bodies are 201/502 in the v3 format, never a 500', async () => {
      const missing = await validate({ country: 'BR' });
      assert.deepEqual([missing.status, missing.body.code], [400, 201]);
      assert.deepEqual(missing.body.details.sort(), ['bank_account: is required', 'document: is required']);
      const noAccount = await validate({ ...BR, bank_account: {} });
      assert.deepEqual(noAccount.body.details, ['bank_account.account: is required']);
      const country = await validate({ ...BR, country: 'US', bank_account: ITAU });
      assert.equal(country.body.code, 201);
      assert.match(country.body.details[0], /^country: must be one of AR, BR/);
      for (const raw of ['[]', '"x"', 'null', '{"country":']) {
        const r = await validate(raw);
        assert.equal(r.status, 400, raw);
        assert.equal(r.body.code, 502, `${raw}: ${r.text}`);
      }
      const long = await validate({ ...BR, bank_account: { ...ITAU, account: '1'.repeat(46) } });
      assert.equal(long.body.code, 201);
    });

    test('a merchant without the feature gets 403 FEATURE_NOT_ENABLED, not 404', async () => {
      const other = await createMerchant(s.url, 'No validation');
      assert.equal((await admin(s.url, 'PATCH', `/admin/merchants/${other.merchant_id}`, { features: { account_validation: false } })).status, 200);
      const r = await V3Client.cashouts(s.url, other).post('/v5/account/validate', { ...BR, bank_account: ITAU });
      assert.deepEqual([r.status, r.body.code, r.body.type], [403, 106, 'FEATURE_NOT_ENABLED'], r.text);
      assert.match(r.body.description, /not enabled/);
      const pix = await V3Client.cashouts(s.url, other).post('/v5/account/pix_key/validate', [{ pix: 'a@b.com' }]);
      assert.equal(pix.status, 200, 'the Pix key feature is switched separately');
    });

    test('the OpenAPI document describes both endpoints with examples', async () => {
      const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
      const account = doc.paths['/v5/account/validate'].post;
      assert.ok(account.requestBody.content['application/json'].examples || account.requestBody.content['application/json'].schema.examples);
      assert.ok(account.responses['204']);
      assert.ok(doc.paths['/v5/account/pix_key/validate'].post.responses['200']);
    });
  });
}
