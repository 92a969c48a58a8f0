// The API reference cannot drift: every example in /openapi.json validates against its schema,
// every answer of a walk through every JSON operation (test/helpers/api-tour.ts) validates
// against the document's schema for that operation and status, and the document covers every
// operation both API styles serve.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { generateDueReports } from '../../src/settlements/service.ts';
import { apiTour } from '../helpers/api-tour.ts';

type Json = Record<string, any>;

describe('OpenAPI document', () => {
  let s: TestServer;
  let doc: Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  before(async () => {
    s = await startTestServer('pglite', { CAJA_CASHOUT_DELAY_SECONDS: '3600' });
    doc = await (await fetch(`${s.url}/openapi.json`)).json();
  });
  after(() => s.close());

  const operations = () => Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([method, op]) => ({ key: `${method} ${path}`, op: op as Json })));

  test('3.1, with security schemes for every header that authenticates, and the streamline forms', () => {
    assert.equal(doc.openapi, '3.1.0');
    for (const name of ['v3Signature', 'xDate', 'xLogin', 'payloadSignature', 'readOnlyKey', 'adminToken']) assert.ok(doc.components.securitySchemes[name], name);
    for (const path of ['/api_curl/streamline/NewInvoice', '/apd/webpaystatus', '/api_curl/apd/refund', '/api_curl/query/refundstatus', '/api_curl/apd/get_banks_by_country', '/apd/webcurrencyexchange']) {
      assert.ok(doc.paths[path]?.post?.requestBody?.content['application/x-www-form-urlencoded'], path);
    }
    for (const { key, op } of operations()) {
      if (op.security?.some((x: Json) => 'v3Signature' in x)) {
        assert.deepEqual(op.parameters.filter((p: Json) => p.in === 'header').map((p: Json) => p.name).slice(0, 2).sort(), ['X-Date', 'X-Login'], key);
        assert.match(op.responses['400'].description, /102 INVALID_SIGNATURE/, key);
      }
    }
  });

  test('/docs renders the reference from assets caja serves itself', async () => {
    const html = await (await fetch(`${s.url}/docs`)).text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.includes('/docs/static/swagger-ui-bundle.js'), assets.join(' '));
    for (const asset of assets) {
      assert.ok(asset.startsWith('/docs/'), `${asset} is not served by caja`);
      const r = await fetch(s.url + asset);
      assert.equal(r.status, 200, asset);
      // Read to the end: an unread answer (the bundle is 1.5 MB) holds its connection open, and
      // the server's graceful close waits for it, over a minute.
      assert.ok((await r.arrayBuffer()).byteLength > 0, `${asset} is empty`);
    }
  });

  test('every example validates against its schema', () => {
    let checked = 0;
    for (const { key, op } of operations()) {
      const media = [['request', op.requestBody?.content?.['application/json'] ?? op.requestBody?.content?.['application/x-www-form-urlencoded']], ...Object.entries(op.responses ?? {}).map(([status, r]) => [status, (r as Json).content?.['application/json']])];
      for (const [where, m] of media as [string, Json | undefined][]) {
        if (!m || m.example === undefined) continue;
        const ok = ajv.validate(m.schema ?? {}, m.example);
        assert.ok(ok, `${key} ${where}: ${ajv.errorsText()}`);
        checked++;
      }
    }
    assert.ok(checked >= 60, `examples checked: ${checked}`);
  });

  test('every operation has a response example', () => {
    // A success answer shown as it comes: a JSON example (recorded by scripts/openapi-examples.ts),
    // or for an answer without a body (204) its description of what comes back.
    const missing = operations().filter(({ op }) => !Object.entries(op.responses ?? {}).some(([status, r]) => {
      const content = (r as Json).content as Json | undefined;
      if (!content) return status === '204';
      return Object.values(content).some((m) => (m as Json).example !== undefined || (m as Json).examples !== undefined);
    })).map((o) => o.key);
    assert.deepEqual(missing, [], `${missing.length} of ${operations().length} operations have no response example`);
  });

  test('the running service answers what the document says, for every JSON operation', async () => {
    const recorded = await apiTour(s.url, { settle: () => generateDueReports(s.ctx, { now: new Date(Date.now() + 2 * 86_400_000), delayMinutes: 0 }) });
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const r of recorded) {
      const [method, path] = r.key.split(' ');
      const op = doc.paths[path]?.[method];
      if (!op) {
        problems.push(`${r.key}: not in the document`);
        continue;
      }
      seen.add(r.key);
      const response = op.responses[String(r.status)];
      if (!response) {
        problems.push(`${r.key}: status ${r.status} not documented`);
        continue;
      }
      const schema = response.content?.['application/json']?.schema;
      if (schema && !ajv.validate(schema, r.response)) problems.push(`${r.key} ${r.status}: ${ajv.errorsText()}`);
      const request = op.requestBody?.content?.['application/json']?.schema;
      if (request && r.request !== undefined && r.status < 300 && !ajv.validate(request, r.request)) problems.push(`${r.key} request: ${ajv.errorsText()}`);
    }
    assert.deepEqual(problems, []);
    const untoured = operations().map((o) => o.key).filter((k) => !seen.has(k) && !k.includes('/api_curl/') && !k.includes('/apd/'));
    assert.deepEqual(untoured, [], 'operations the tour does not call');
  });
});
