import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { XMLParser } from 'fast-xml-parser';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, formPost, type Credentials } from '../helpers/clients.ts';

const xml = new XMLParser({ parseTagValue: false });

for (const backend of backends()) {
  describe(`streamline lookups (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Streamline lookups');
    });
    after(() => s.close());
    const creds = () => ({ x_login: m.deposits.login, x_trans_key: m.deposits.trans_key });

    test('get_banks_by_country: XML by default, JSON and pipe on request', async () => {
      const x = await formPost(s.url, '/api_curl/apd/get_banks_by_country', { ...creds(), country_code: 'BR' });
      assert.equal(x.status, 200);
      assert.match(x.headers.get('content-type') ?? '', /xml/);
      const banks = xml.parse(x.text).banks.bank;
      const pix = banks.find((b: any) => b.code === 'IX');
      assert.ok(pix);
      assert.match(pix.logo, /^http:\/\/127\.0\.0\.1:\d+\/logos\/br\/ix\.svg$/);
      assert.equal(pix.payment_type, '00');
      const j = await formPost(s.url, '/api_curl/apd/get_banks_by_country', { ...creds(), country_code: 'mx', type: 'json' });
      assert.ok(Array.isArray(j.body));
      assert.deepEqual(Object.keys(j.body[0]), ['code', 'name', 'logo', 'payment_type']);
      assert.ok(j.body.some((b: any) => b.code === 'OX' && b.payment_type === '02'));
      const p = await formPost(s.url, '/api_curl/apd/get_banks_by_country', { ...creds(), country_code: 'MX', type: 'pipe' });
      const lines = p.text.split('\n');
      assert.equal(lines.length, j.body.length);
      assert.deepEqual(lines[0].split('|'), Object.values(j.body[0]));
    });

    test('errors: invalid credentials 401, empty 301, unknown country 505, not form-encoded 300', async () => {
      const bad = await formPost(s.url, '/api_curl/apd/get_banks_by_country', { ...creds(), x_trans_key: 'wrong', country_code: 'BR', type: 'json' });
      assert.deepEqual(bad.body, { status: 'ERROR', description: 'Invalid credentials', error_code: 401 });
      const empty = await formPost(s.url, '/api_curl/apd/get_banks_by_country', { ...creds(), country_code: '', type: 'json' });
      assert.equal(empty.body.error_code, 301);
      const unknown = await formPost(s.url, '/api_curl/apd/get_banks_by_country', { ...creds(), country_code: 'US', type: 'json' });
      assert.equal(unknown.body.error_code, 505);
      const xmlErr = await formPost(s.url, '/api_curl/apd/get_banks_by_country', { ...creds(), country_code: 'US' });
      assert.equal(xml.parse(xmlErr.text).response.error_code, '505');
      const json = await fetch(`${s.url}/api_curl/apd/get_banks_by_country`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...creds(), country_code: 'BR', type: 'json' }) });
      const body = (await json.json()) as any;
      assert.equal(body.error_code, 300);
      assert.match(body.description, /x-www-form-urlencoded/);
    });

    test('webcurrencyexchange converts USD with the web-status or deposits credentials', async () => {
      await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { BRL: '5.4321' } });
      const r = await formPost(s.url, '/apd/webcurrencyexchange', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_country: 'BR', x_amount: '100.01' });
      assert.deepEqual(r.body, { x_country: 'BR', x_amount: '100.01', currency: 'BRL', rate: '5.4321', local_amount: '543.26' });
      const pipe = await formPost(s.url, '/apd/webcurrencyexchange', { ...creds(), x_country: 'BR', x_amount: '1', type: 'STRING' });
      assert.equal(pipe.text, 'BR|1.00|BRL|5.4321|5.43');
      const x = await formPost(s.url, '/apd/webcurrencyexchange', { ...creds(), x_country: 'BR', x_amount: '2', type: 'XML' });
      assert.equal(xml.parse(x.text).response.local_amount, '10.86');
      const bad = await formPost(s.url, '/apd/webcurrencyexchange', { ...creds(), x_country: 'BR', x_amount: '1.234' });
      assert.equal(bad.body.error_code, 300);
    });
  });
}
