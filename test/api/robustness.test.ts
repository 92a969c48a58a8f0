// Bad input of every kind, on every route of the OpenAPI document and every streamline
// endpoint: never a 5xx, always the face's own error format.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { startTestServer, ADMIN_TOKEN, type TestServer } from '../helpers/server.ts';
import { createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';

const BODIES = [
  '',
  'null',
  '[]',
  '"text"',
  '{"a":',
  '{}',
  '{"amount":"1e400","country":["BR"],"payer":"x","deposit_id":-1,"invoice_id":{"$gt":""}}',
  '{"amount":123456789012345678901234567890.123,"currency":7,"payer":{"document":{},"address":[]},"test":"yes"}',
  '{"rates":{"BRL":{}},"set":5,"name":"","features":[],"deposit_id":1e308}',
  `{"description":"${'ü'.repeat(5000)}","invoice_id":"${'x'.repeat(300)}","amount":"0.001"}`,
  '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
];
const PARAMS = ['abc', '-1', '0', '99999999999999999999', '%00', '1.5'];

describe('robustness', () => {
  let s: TestServer;
  let m: Credentials;
  let routes: { method: string; path: string }[];
  before(async () => {
    s = await startTestServer('pglite');
    m = await createMerchant(s.url, 'Robust');
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
  });
  after(() => s.close());

  function headersFor(path: string, method: string, body: string): Record<string, string>[] {
    const out: Record<string, string>[] = [];
    if (path.startsWith('/admin')) out.push({ authorization: `Bearer ${ADMIN_TOKEN}` });
    out.push({ authorization: `Bearer ${m.read_only_key}` });
    for (const client of [V3Client.deposits(s.url, m), V3Client.cashouts(s.url, m)]) {
      const xDate = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      out.push({
        'X-Date': xDate,
        'X-Login': client.login,
        Authorization: `SVC ${hmacHex(client.secret, xDate + client.login + (method === 'GET' ? '' : body))}`,
      });
    }
    return out;
  }

  test('no route answers a 5xx to malformed bodies or parameters', async () => {
    assert.ok(routes.length > 20, `only ${routes.length} routes documented`);
    const failures: string[] = [];
    // Requests that got past authentication into validation: the test must reach real logic.
    let validated = 0;
    for (const { method, path } of routes) {
      const paths = path.includes('{') ? PARAMS.map((p) => path.replace(/\{[^}]+\}/g, p)) : [`${path}${method === 'GET' ? '?country=ZZ&amount=-1&after=x&limit=99999' : ''}`];
      for (const url of paths) {
        for (const body of method === 'GET' ? [''] : BODIES) {
          for (const headers of headersFor(path, method, body)) {
            const r = await fetch(s.url + url, {
              method,
              headers: { ...headers, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
              body: method === 'GET' ? undefined : body,
            });
            const text = await r.text();
            if (r.status >= 500) failures.push(`${method} ${url} ${body.slice(0, 40)} → ${r.status} ${text.slice(0, 200)}`);
            else if (r.status >= 400 && !(path === '/docs' || path.startsWith('/docs'))) {
              const parsed = JSON.parse(text);
              if (typeof parsed.code !== 'number') failures.push(`${method} ${url} → ${r.status} without a code: ${text.slice(0, 100)}`);
              if (parsed.code === 201 || parsed.code === 502) validated++;
            }
            if (/at .*\.ts:\d+/.test(text)) failures.push(`${method} ${url} leaked a stack trace`);
          }
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(validated > 100, `only ${validated} requests reached validation`);
  });

  test('streamline endpoints answer every malformed form in their own format', async () => {
    const endpoints = ['/api_curl/streamline/NewInvoice', '/apd/webpaystatus', '/api_curl/apd/refund', '/api_curl/query/refundstatus', '/api_curl/apd/get_banks_by_country', '/apd/webcurrencyexchange'];
    const forms = [
      '',
      'x_login=&x_trans_key=',
      `x_login=${m.deposits.login}&x_trans_key=${m.deposits.trans_key}`,
      `x_login=${m.web_status.login}&x_trans_key=${m.web_status.trans_key}&x_invoice=%FF%FE&x_refund=99999999999999&x_country=%00&x_amount=1e9`,
      `x_login=${m.deposits.login}&x_trans_key=${m.deposits.trans_key}&x_invoice=a&x_amount=-5&x_country=BR&x_bank=IX&x_iduser=abc&x_cpf=1&x_name=a&x_email=b&control=zz&x_document=1.5&x_control=1&country_code=BR&type=JSON`,
      `type=XML&${'x_junk=1&'.repeat(500)}`,
    ];
    for (const path of endpoints) {
      for (const body of forms) {
        for (const contentType of ['application/x-www-form-urlencoded', 'application/json', 'text/plain']) {
          const r = await fetch(s.url + path, { method: 'POST', headers: { 'content-type': contentType }, body });
          const text = await r.text();
          assert.ok(r.status < 500, `${path} ${contentType} ${body.slice(0, 60)} → ${r.status} ${text.slice(0, 200)}`);
          assert.ok(!/at .*\.ts:\d+/.test(text));
        }
      }
    }
  });
});

function hmacHex(key: string, msg: string): string {
  return createHmac('sha256', key).update(msg).digest('hex');
}
