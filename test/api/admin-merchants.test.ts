import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, bearer, createMerchant, V3Client } from '../helpers/clients.ts';
import { CAJA_CLI } from '../helpers/programs.ts';
import { migratedDataDir } from '../helpers/data-dir.ts';

for (const backend of backends()) {
  describe(`admin merchants (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    test('401 without the admin token or with a wrong one', async () => {
      const none = await fetch(`${s.url}/admin/merchants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
      assert.equal(none.status, 401);
      assert.equal(((await none.json()) as any).code, 100);
      const wrong = await admin(s.url, 'POST', '/admin/merchants', { name: 'x' }, 'not-the-token-at-all');
      assert.equal(wrong.status, 401);
      assert.equal((await admin(s.url, 'GET', '/admin/merchants/1', undefined, 'nope')).status, 401);
    });

    test('create answers every credential set once, in the documented shape', async () => {
      const r = await admin(s.url, 'POST', '/admin/merchants', { name: 'Acme', notification_url: 'https://acme.example/hook' });
      assert.equal(r.status, 201);
      const c = r.body;
      assert.equal(typeof c.merchant_id, 'number');
      assert.equal(c.name, 'Acme');
      assert.equal(c.environment, 'staging');
      for (const [set, keys] of Object.entries({ deposits: ['login', 'trans_key', 'secret_key'], web_status: ['login', 'trans_key'], cashouts: ['login', 'pass', 'secret_key'], panel: ['email', 'password'] })) {
        assert.deepEqual(Object.keys(c[set]).sort(), [...keys].sort(), set);
        for (const k of keys) assert.ok(c[set][k].length >= 8, `${set}.${k}`);
      }
      assert.ok(c.deposits.trans_key.length <= 32 && c.cashouts.pass.length <= 32 && c.deposits.login.length <= 32, 'spec max lengths');
      assert.match(c.read_only_key, /^ro_/);
      // Nothing secret is stored in the clear.
      const rows = (await s.ctx.db.query(`SELECT login, secret_hash, secret_enc FROM credentials WHERE merchant_id = $1`, [c.merchant_id])).rows;
      const stored = JSON.stringify(rows);
      for (const secret of [c.deposits.trans_key, c.deposits.secret_key, c.web_status.trans_key, c.cashouts.pass, c.cashouts.secret_key, c.read_only_key, c.panel.password]) {
        assert.ok(!stored.includes(secret), 'secret stored in clear');
      }
    });

    test('GET shows the merchant without secrets; unknown id is 404', async () => {
      const c = await createMerchant(s.url, 'Shown');
      const r = await admin(s.url, 'GET', `/admin/merchants/${c.merchant_id}`);
      assert.equal(r.status, 200);
      assert.equal(r.body.name, 'Shown');
      assert.deepEqual(r.body.features, { account_validation: true, pix_key_validation: true });
      for (const secret of [c.deposits.trans_key, c.deposits.secret_key, c.cashouts.pass, c.read_only_key, c.panel.password]) {
        assert.ok(!r.text.includes(secret));
      }
      const missing = await admin(s.url, 'GET', '/admin/merchants/999999');
      assert.deepEqual([missing.status, missing.body.code], [404, 208]);
      // A path id that is not a positive integer in range is not one of ours (src/http/params.ts).
      const bad = await admin(s.url, 'GET', '/admin/merchants/abc');
      assert.deepEqual([bad.status, bad.body.code], [404, 208]);
    });

    test('validation errors list every failing field', async () => {
      const r = await admin(s.url, 'POST', '/admin/merchants', { name: 'X', notification_url: 'ftp://x', return_url: 'http://evil.example/' });
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 201);
      assert.deepEqual(r.body.details.map((d: string) => d.split(':')[0]).sort(), ['notification_url', 'return_url']);
      const missing = await admin(s.url, 'POST', '/admin/merchants', {});
      assert.deepEqual(missing.body.details, ['name: is required']);
      const loopback = await admin(s.url, 'POST', '/admin/merchants', { name: 'Local', notification_url: 'http://localhost:3000/hook' });
      assert.equal(loopback.status, 201, 'staging accepts http on loopback');
    });

    test('PATCH switches features and settings', async () => {
      const c = await createMerchant(s.url, 'Patched');
      const r = await admin(s.url, 'PATCH', `/admin/merchants/${c.merchant_id}`, { features: { pix_key_validation: false }, return_url: 'https://p.example/back' });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.features, { account_validation: true, pix_key_validation: false });
      assert.equal(r.body.return_url, 'https://p.example/back');
    });

    test('rotating each set answers only that set; with grace_hours 0 the old values are revoked at once', async () => {
      const c = await createMerchant(s.url, 'Rotator');
      const ro = await admin(s.url, 'POST', `/admin/merchants/${c.merchant_id}/rotate`, { set: 'read_only' });
      assert.equal(ro.status, 200);
      assert.deepEqual(Object.keys(ro.body).sort(), ['environment', 'merchant_id', 'name', 'previous_valid_until', 'read_only_key']);
      const cash = await admin(s.url, 'POST', `/admin/merchants/${c.merchant_id}/rotate`, { set: 'cashouts', grace_hours: 0 });
      assert.notEqual(cash.body.cashouts.secret_key, c.cashouts.secret_key);
      assert.equal((await V3Client.cashouts(s.url, c).get('/v5/me')).status, 401);
      assert.equal((await V3Client.cashouts(s.url, { ...c, cashouts: cash.body.cashouts }).get('/v5/me')).status, 200);
      const bad = await admin(s.url, 'POST', `/admin/merchants/${c.merchant_id}/rotate`, { set: 'everything' });
      assert.deepEqual([bad.status, bad.body.code], [400, 201]);
      assert.equal((await admin(s.url, 'POST', '/admin/merchants/999999/rotate', { set: 'panel' })).status, 404);
      // A bearer endpoint with the rotated-away read-only key must not exist for it any more.
      assert.notEqual(c.read_only_key, ro.body.read_only_key);
      void bearer;
    });
  });
}

describe('operations endpoints', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('pglite');
  });
  after(() => s.close());

  test('health checks the database and names the version answering (package.json\'s)', async () => {
    const r = await fetch(`${s.url}/health`);
    assert.equal(r.status, 200);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.match(version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(await r.json(), { status: 'ok', database: 'pglite', environment: 'staging', version });
  });

  test('every response carries a request id, and a given one is echoed', async () => {
    const r = await fetch(`${s.url}/health`, { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(r.headers.get('x-request-id'), 'trace-123');
    assert.match((await fetch(`${s.url}/health`)).headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  test('metrics count requests per route', async () => {
    await fetch(`${s.url}/health`);
    const text = await (await fetch(`${s.url}/metrics`)).text();
    assert.match(text, /caja_http_requests_total\{method="GET",route="\/health",status_code="200"\} \d+/);
    assert.match(text, /caja_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/health"\}/);
  });

  test('OpenAPI document lists the routes with their schemas; /docs renders it', async () => {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/admin/merchants'].post.requestBody);
    assert.ok(doc.paths['/v3/me'].get.responses['200']);
    const docs = await fetch(`${s.url}/docs`, { redirect: 'follow' });
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger/i);
  });

  test('unknown routes answer 404 in the v3 format, never a stack trace', async () => {
    const r = await fetch(`${s.url}/nope`);
    assert.equal(r.status, 404);
    assert.deepEqual(await r.json(), { code: 208, description: 'Route not found', type: 'RESOURCE_NOT_FOUND' });
  });
});

describe('CLI', () => {
  test('caja merchant create --json prints the credentials JSON; bad input is a usage error', async () => {
    const dataDir = await migratedDataDir('caja-cli-');
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', CAJA_MASTER_KEY: '' };
    const r = spawnSync(process.execPath, [CAJA_CLI, 'merchant', 'create', '--name', 'Cli Shop', '--json'], { env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const c = JSON.parse(r.stdout);
    assert.equal(c.name, 'Cli Shop');
    assert.ok(c.deposits.secret_key && c.cashouts.pass && c.read_only_key && c.panel.password);
    const bad = spawnSync(process.execPath, [CAJA_CLI, 'merchant', 'create'], { env, encoding: 'utf8' });
    assert.equal(bad.status, 64);
    assert.match(bad.stderr, /--name is required/);
  });
});
