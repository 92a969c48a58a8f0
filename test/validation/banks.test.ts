// GET /v3/banks from the registries: every country the catalog serves, numeric codes that the
// other endpoints accept as bank_code, and an ETag a front end can revalidate with.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { bearer, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { ACCEPTED_COUNTRIES } from '../../src/domain/countries.ts';

for (const backend of backends()) {
  describe(`banks registry over HTTP (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Bank picker');
    });
    after(() => s.close());

    test('every accepted country answers [{code: number, name}] from its registry', async () => {
      for (const c of ACCEPTED_COUNTRIES) {
        const r = await bearer(s.url, m.read_only_key, `/v3/banks?country=${c.code}`);
        assert.equal(r.status, 200, c.code);
        assert.ok(r.body.length >= 3, c.code);
        for (const b of r.body) assert.deepEqual([typeof b.code, typeof b.name, Object.keys(b)], ['number', 'string', ['code', 'name']], c.code);
      }
      const br = await bearer(s.url, m.read_only_key, '/v3/banks?country=BR');
      assert.ok(br.body.length > 400, 'the full COMPE list');
      assert.ok(br.body.some((b: any) => b.code === 260 && /nu pagamentos/i.test(b.name)));
    });

    test('ETag: the same list revalidates with 304; cache headers are private no-cache', async () => {
      const first = await bearer(s.url, m.read_only_key, '/v3/banks?country=MX');
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[\w-]+"$/);
      assert.equal(first.headers.get('cache-control'), 'private, no-cache');
      const again = await fetch(`${s.url}/v3/banks?country=MX`, { headers: { Authorization: `Bearer ${m.read_only_key}`, 'If-None-Match': etag! } });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
      const weak = await fetch(`${s.url}/v3/banks?country=MX`, { headers: { Authorization: `Bearer ${m.read_only_key}`, 'If-None-Match': `"old", W/${etag}` } });
      assert.equal(weak.status, 304);
      const other = await bearer(s.url, m.read_only_key, '/v3/banks?country=AR');
      assert.notEqual(other.headers.get('etag'), etag);
      const stale = await fetch(`${s.url}/v3/banks?country=MX`, { headers: { Authorization: `Bearer ${m.read_only_key}`, 'If-None-Match': '"stale"' } });
      assert.equal(stale.status, 200);
      const noKey = await fetch(`${s.url}/v3/banks?country=MX`, { headers: { 'If-None-Match': etag! } });
      assert.equal(noKey.status, 400, 'the key is checked before the cache');
    });

    test('a code from the list is what v5 validation accepts as bank_code; one not in it is unknown_bank', async () => {
      const list = (await bearer(s.url, m.read_only_key, '/v3/banks?country=CO')).body as { code: number }[];
      const v5 = V3Client.cashouts(s.url, m);
      const body = (bank_code: string) => ({ country: 'CO', document: '1020304050', bank_account: { bank_code, account: '12345678901', account_type: 'SAVING' } });
      for (const b of list.slice(0, 5)) assert.equal((await v5.post('/v5/account/validate', body(String(b.code)))).status, 204, String(b.code));
      const unknown = await v5.post('/v5/account/validate', body('424242'));
      assert.equal(unknown.body.description, 'Invalid bank account: unknown_bank');
    });
  });
}
