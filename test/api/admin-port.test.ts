// CAJA_ADMIN_PORT: /admin, /metrics and /ops only on the admin listener (127.0.0.1), nothing else
// there. Without it, production serves none of them on the public port unless
// CAJA_ADMIN_ON_PUBLIC_PORT=true; PUBLIC_BASE_URL must be https for a production server to start.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { checkServerConfig, loadConfig } from '../../src/config/config.ts';
import { listenAdmin } from '../../src/api/admin/listener.ts';

describe('admin port', () => {
  let s: TestServer;
  let adminServer: Server;
  let adminUrl: string;
  before(async () => {
    // The configured port is replaced by a free one (0) for the test's listener.
    s = await startTestServer('pglite', { CAJA_ADMIN_PORT: '1' });
    adminServer = (await listenAdmin(s.app, s.ctx.config, 0))!;
    adminUrl = `http://127.0.0.1:${(adminServer.address() as AddressInfo).port}`;
  });
  after(async () => {
    adminServer.close();
    await s.close();
  });

  const get = (base: string, path: string) => fetch(base + path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  test('/admin and /metrics answer only on the admin listener, bound to 127.0.0.1', async () => {
    assert.equal((adminServer.address() as AddressInfo).address, '127.0.0.1');
    const created = await fetch(`${adminUrl}/admin/merchants`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: '{"name":"Ops"}' });
    assert.equal(created.status, 201);
    const id = (await created.json()).merchant_id;
    assert.equal((await get(adminUrl, `/admin/merchants/${id}`)).status, 200);
    assert.equal((await get(adminUrl, '/metrics')).status, 200);
    const hidden = await get(s.url, `/admin/merchants/${id}`);
    assert.deepEqual([hidden.status, (await hidden.json()).code], [404, 208]);
    assert.equal((await get(s.url, '/metrics')).status, 404);
    assert.equal((await get(s.url, '/ADMIN/merchants')).status, 404, 'paths match without regard to case');
  });

  /** A request with its target sent exactly as written (fetch would normalise some spellings). */
  const raw = (base: string, method: string, target: string, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { hostname, port } = new URL(base);
      const req = http.request({ hostname, port, method, path: target, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  // Every spelling the router takes for an admin path: empty segments, percent-encoded
  // unreserved characters, case, a trailing slash, a query or fragment, the absolute form.
  const adminSpellings = (id: number) => [
    `//admin/merchants/${id}`, `/%61dmin/merchants/${id}`, `/%61DMIN/Merchants/${id}/`, `/admin//merchants/${id}`, `///admin/merchants/${id}?x=1`,
    `/%2561dmin/merchants/${id}`, `http://localhost/admin/merchants/${id}`, `http://localhost//%61dmin/merchants/${id}`,
  ];
  const metricsSpellings = ['//metrics', '///metrics', '/%6detrics', '/%6Detrics/', '/METRICS', '/metrics#x', '/metrics?x=1', 'http://localhost//metrics'];

  test('an admin path in another spelling is not served on the public port', async () => {
    const created = await raw(s.url, 'POST', '//admin/merchants', '{"name":"Through the public port"}');
    assert.equal(created.status, 404, created.body);
    assert.equal((await raw(s.url, 'POST', '/%61dmin/merchants', '{"name":"Through the public port"}')).status, 404);
    const listed = await s.ctx.db.query<{ n: string }>(`SELECT count(*) AS n FROM merchants WHERE name = 'Through the public port'`);
    assert.equal(Number(listed.rows[0].n), 0, 'no merchant was created through the public port');
    const made = await fetch(`${adminUrl}/admin/merchants`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: '{"name":"Spellings"}' });
    const id = (await made.json()).merchant_id;
    for (const target of [...adminSpellings(id), ...metricsSpellings]) {
      const answer = await raw(s.url, 'GET', target);
      assert.equal(answer.status, 404, `${target} on the public port: ${answer.status} ${answer.body.slice(0, 80)}`);
      assert.doesNotMatch(answer.body, /caja_|merchant_id/, target);
    }
  });

  test('the admin listener answers the same spellings as the router matches them', async () => {
    const created = await raw(adminUrl, 'POST', '//%61dmin/merchants/', '{"name":"Through the admin port"}');
    assert.equal(created.status, 201, created.body);
    const id = JSON.parse(created.body).merchant_id as number;
    for (const target of adminSpellings(id)) {
      // %2561 is "%61" to the router, not "a": no route, on either port.
      const expected = target.includes('%25') ? 404 : 200;
      assert.equal((await raw(adminUrl, 'GET', target)).status, expected, target);
    }
    for (const target of metricsSpellings) assert.equal((await raw(adminUrl, 'GET', target)).status, 200, target);
    for (const target of ['//health', '/%68ealth', '/HEALTH/', '//v3//me', 'http://localhost/health']) {
      assert.equal((await raw(adminUrl, 'GET', target)).status, 404, `${target} on the admin port`);
      // The public port serves them: health answers; /v3/me is reached and asks for the v3
      // signature's headers (the admin token is no merchant credential).
      const pub = await raw(s.url, 'GET', target);
      if (target.includes('v3')) assert.deepEqual([pub.status, JSON.parse(pub.body).code], [400, 101], `${target} on the public port: ${pub.body.slice(0, 200)}`);
      else assert.equal(pub.status, 200, `${target} on the public port: ${pub.body.slice(0, 200)}`);
    }
  });

  test('the operator console answers only on the admin listener', async () => {
    assert.equal((await fetch(`${adminUrl}/ops/login`)).status, 200);
    for (const path of ['/ops/login', '/ops', '/%6Fps/login', '//ops/login', '/OPS/login']) {
      const r = await raw(s.url, 'GET', path);
      assert.equal(r.status, 404, `${path} on the public port: ${r.status}`);
    }
  });

  test('the admin listener serves nothing else', async () => {
    assert.equal((await fetch(`${adminUrl}/health`)).status, 404);
    assert.equal((await fetch(`${adminUrl}/v3/me`)).status, 404);
    assert.equal((await fetch(`${s.url}/health`)).status, 200);
  });
});

describe('admin surfaces in production without an admin port', () => {
  const surfaces = async (base: string) => ({
    admin: (await fetch(`${base}/admin/merchants`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: '{"name":"Through the public port"}' })).status,
    metrics: (await fetch(`${base}/metrics`)).status,
    ops: (await fetch(`${base}/ops/login`)).status,
    health: (await fetch(`${base}/health`)).status,
    v3: (await fetch(`${base}/v3/me`)).status,
  });

  test('by default: /admin, /metrics and /ops are not served on the public port; the merchant API is', async () => {
    // '' is unset: production's default, not the test servers' opt-in.
    const s = await startTestServer('pglite', { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com', CAJA_ADMIN_ON_PUBLIC_PORT: '' });
    try {
      const seen = await surfaces(s.url);
      assert.deepEqual({ ...seen, v3: seen.v3 === 404 ? 404 : 'served' }, { admin: 404, metrics: 404, ops: 404, health: 200, v3: 'served' });
      const { rows } = await s.ctx.db.query<{ n: string }>(`SELECT count(*) AS n FROM merchants WHERE name = 'Through the public port'`);
      assert.equal(Number(rows[0]!.n), 0);
    } finally {
      await s.close();
    }
  });

  test('CAJA_ADMIN_ON_PUBLIC_PORT=true serves them there, as staging does by default', async () => {
    const envs: Record<string, string>[] = [{ CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com', CAJA_ADMIN_ON_PUBLIC_PORT: 'true' }, {}];
    for (const env of envs) {
      const s = await startTestServer('pglite', env);
      try {
        const seen = await surfaces(s.url);
        assert.deepEqual([seen.admin, seen.metrics, seen.ops, seen.health], [201, 200, 200, 200], JSON.stringify(env));
      } finally {
        await s.close();
      }
    }
  });

  const secrets = { CAJA_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'), CAJA_ADMIN_TOKEN: ADMIN_TOKEN, DATA_DIR: '/tmp/caja-admin-port-config' };

  test('an admin port and CAJA_ADMIN_ON_PUBLIC_PORT=true contradict each other', () => {
    assert.throws(() => loadConfig({ ...secrets, CAJA_ADMIN_PORT: '9090', CAJA_ADMIN_ON_PUBLIC_PORT: 'true' }), /CAJA_ADMIN_ON_PUBLIC_PORT=true and CAJA_ADMIN_PORT contradict/);
    assert.equal(loadConfig({ ...secrets, CAJA_ENV: 'production' }).adminOnPublicPort, false);
    assert.equal(loadConfig({ ...secrets }).adminOnPublicPort, true);
    assert.equal(loadConfig({ ...secrets, CAJA_ADMIN_PORT: '9090' }).adminOnPublicPort, false);
  });

  test('a production server does not start without an https PUBLIC_BASE_URL', () => {
    for (const url of [undefined, 'http://pay.example.com', 'http://localhost:8080']) {
      const config = loadConfig({ ...secrets, CAJA_ENV: 'production', ...(url ? { PUBLIC_BASE_URL: url } : {}) });
      assert.throws(() => checkServerConfig(config), /PUBLIC_BASE_URL must be an https URL in production/, url);
    }
    checkServerConfig(loadConfig({ ...secrets, CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com' }));
    checkServerConfig(loadConfig({ ...secrets, PUBLIC_BASE_URL: 'http://localhost:8080' }));
  });
});
