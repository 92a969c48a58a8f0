// POST /v5/account/pix_key/validate: array in, array out in the same order, each key judged on
// its own (type detection, check digits, mobile numbers) and by staging's simulated DICT.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';

for (const backend of backends()) {
  describe(`v5 Pix key validation (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v5: V3Client;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Pix payouts');
      v5 = V3Client.cashouts(s.url, m);
    });
    after(() => s.close());

    test('every key type, formatted or not, answered in order with the same pix text', async () => {
      const table: [unknown, boolean][] = [
        [{ pix: '529.982.247-25' }, true], // CPF, formatted
        [{ pix: '52998224725' }, true], // CPF, bare
        [{ pix: '529.982.247-24' }, false], // CPF check digit
        [{ pix: '11.222.333/0001-81' }, true], // CNPJ
        [{ pix: '12ABC34501DE35' }, true], // alphanumeric CNPJ (Receita Federal's example)
        [{ pix: '11222333000180' }, false], // CNPJ check digit
        [{ pix: 'Maria.Souza@Example.com' }, true],
        [{ pix: 'maria@' }, false],
        [{ pix: '+55 (11) 98765-4321' }, true], // mobile
        [{ pix: '+551133334444' }, false], // landline: not a DICT key
        [{ pix: '+1 415 555 0100' }, false],
        [{ pix: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906' }, true], // EVP
        [{ pix: '123e4567-e12b-12d1-a456-426655440000' }, false], // not a v4 UUID
        [{ pix: 'hello' }, false],
      ];
      const r = await v5.post('/v5/account/pix_key/validate', table.map(([item]) => item));
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, table.map(([item, valid]) => ({ pix: (item as { pix: string }).pix, valid })));
    });

    test('a malformed item never fails the batch', async () => {
      const r = await v5.post('/v5/account/pix_key/validate', [{ pix: 'a@b.com' }, null, 42, 'x', {}, { pix: 52998224725 }, { pix: ['x'] }, { pix: '' }]);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, [
        { pix: 'a@b.com', valid: true },
        { pix: '', valid: false },
        { pix: '', valid: false },
        { pix: '', valid: false },
        { pix: '', valid: false },
        { pix: '52998224725', valid: true },
        { pix: '', valid: false },
        { pix: '', valid: false },
      ]);
    });

    test('staging DICT magic values: well-formed but not registered', async () => {
      const r = await v5.post('/v5/account/pix_key/validate', [
        { pix: 'unknown.person@example.com' },
        { pix: '+5511987650000' },
        { pix: '7d9f0335-8dcc-4054-9bf9-0dbd61d30000' },
        { pix: '123.450.000-07' }, // CPF whose digits before the check digits end in 0000
      ]);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.map((a: any) => a.valid), [false, false, false, false]);
    });

    test('batch size: up to 100 keys; 101 is a 201 naming the limit; an empty array is fine', async () => {
      const hundred = Array.from({ length: 100 }, () => ({ pix: 'a@b.com' }));
      const ok = await v5.post('/v5/account/pix_key/validate', hundred);
      assert.deepEqual([ok.status, ok.body.length], [200, 100]);
      const big = await v5.post('/v5/account/pix_key/validate', [...hundred, { pix: 'a@b.com' }]);
      assert.deepEqual([big.status, big.body.code], [400, 201], big.text);
      assert.match(big.body.details[0], /100/);
      const empty = await v5.post('/v5/account/pix_key/validate', []);
      assert.deepEqual([empty.status, empty.body], [200, []]);
    });

    test('a non-array body is 502; no signature is 101; the feature switch answers 403', async () => {
      const obj = await v5.post('/v5/account/pix_key/validate', { pix: 'a@b.com' });
      assert.deepEqual([obj.status, obj.body.code, obj.body.description], [400, 502, 'Request body must be a JSON array']);
      const unsigned = await fetch(`${s.url}/v5/account/pix_key/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
      assert.equal(((await unsigned.json()) as any).code, 101);
      assert.equal((await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { features: { pix_key_validation: false } })).status, 200);
      const off = await v5.post('/v5/account/pix_key/validate', [{ pix: 'a@b.com' }]);
      assert.deepEqual([off.status, off.body.code], [403, 106]);
      await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { features: { pix_key_validation: true } });
    });
  });
}
