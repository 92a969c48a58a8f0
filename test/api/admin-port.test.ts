// CAJA_ADMIN_PORT: /admin and /metrics only on the admin listener (127.0.0.1), nothing else there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { listenAdmin } from '../../src/ops/admin-listener.ts';

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

  test('the admin listener serves nothing else', async () => {
    assert.equal((await fetch(`${adminUrl}/health`)).status, 404);
    assert.equal((await fetch(`${adminUrl}/v3/me`)).status, 404);
    assert.equal((await fetch(`${s.url}/health`)).status, 200);
  });
});
