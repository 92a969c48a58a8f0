// Property: no correctly signed request with hostile values, over any way in (v3, v5, cashouts,
// streamline, sandbox, admin, read-only lookups), gets a 5xx or a streamline body hiding an
// internal error, and the service stays healthy. CI runs a short pass on every backend; long
// passes are `npm run fuzz -- --requests 100000`. FUZZ_SEED replays a failing run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { type Fixtures, makeFixtures, routes, runFuzz } from './harness.ts';
import { admin, formPost, V3Client } from '../helpers/clients.ts';
import { registeredRoutes } from '../helpers/routes.ts';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);

/**
 * Routes the fuzzer does not send: HTML pages and their forms (hostile input there is covered by
 * test/web, test/panel and test/ops: escaping, CSRF, sessions, roles) and the operator's static documents.
 */
const NOT_FUZZED = /^(GET|POST) \/(panel|ops|checkout|pay|vouchers|return|docs|logos)\b|^GET \/(openapi\.json|metrics)$/;


for (const backend of backends()) {
  describe(`hostile clients (${backend})`, () => {
    let s: TestServer;
    let fx: Fixtures;
    before(async () => {
      s = await startTestServer(backend);
      fx = await makeFixtures(s.url);
    });
    after(() => s.close());

    test(`${REQUESTS} signed requests with hostile values: no 5xx, no hidden 500, still healthy`, async () => {
      const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
      const report = await runFuzz(s.url, fx, { count: REQUESTS, seed, concurrency: 4 });
      assert.equal(report.sent, REQUESTS);
      assert.deepEqual(report.failures, [], `seed ${seed} (FUZZ_SEED=${seed} replays it)`);
      // The requests must reach real logic: most are answered, not refused at authentication.
      assert.ok((report.byStatus[401] ?? 0) < REQUESTS / 20, `too many 401: ${JSON.stringify(report.byStatus)}`);
      assert.ok((report.byStatus[200] ?? 0) > REQUESTS / 5, `too few 200: ${JSON.stringify(report.byStatus)}`);
    });

    test('every API route is fuzzed: a new route without a harness entry fails here', () => {
      const param = (p: string) => p.replace(/\{\w+\}/g, ':id').replace(/:\w+/g, ':id').toLowerCase();
      const fuzzed = new Set(routes(fx).map((r) => `${r.method} ${param(r.path)}`));
      const missing = registeredRoutes(s.app.printRoutes({ commonPrefix: false }))
        .filter((r) => !NOT_FUZZED.test(r))
        .filter((r) => {
          const [method, path] = r.split(' ');
          // The connectors' callback routes take the connector's name as a parameter.
          return !fuzzed.has(`${method} ${param(path!)}`) && !fuzzed.has(`${method} ${param(path!.replace(':name', 'pix'))}`);
        });
      assert.deepEqual(missing, []);
    });

    // The causes seen before the fix, each once, with the answer the style gives.
    test('path ids and paging values out of range: not found or a validation error naming the value', async () => {
      const v3 = V3Client.deposits(s.url, fx.m);
      for (const id of ['2147483648', 'Infinity', '1e309', '-1', '0', '1.5', '99999999999999999999']) {
        for (const path of [`/v3/deposits/${id}`, `/v3/refunds/${id}`, `/v3/notifications/${id}`]) {
          const r = await v3.get(path);
          assert.deepEqual([r.status, r.body.code], [404, 208], `${path}: ${r.text}`);
        }
        const a = await admin(s.url, 'GET', `/admin/merchants/${id}/balance`);
        assert.deepEqual([a.status, a.body.code], [404, 208], a.text);
      }
      for (const q of ['limit=Infinity', 'limit=1e309', 'after=2147483648.5', 'before=-1', 'limit=1&limit=2']) {
        const r = await v3.get(`/v3/events?${q}`);
        assert.deepEqual([r.status, r.body.code], [400, 201], `${q}: ${r.text}`);
        assert.match(r.body.details[0], /^(limit|after|before): /);
      }
      assert.equal((await v3.get('/v3/notifications/9007199254740991')).status, 404, 'a bigserial id in range is looked up');
      // A cursor past every id of an integer table is the first page (the fuzz found it a 500, seed 424437323).
      const first = await v3.get('/v3/deposits?limit=5');
      for (const q of ['before=2147483648', 'status=COMPLETED&country=BR&before=2147483648']) {
        const r = await v3.get(`/v3/deposits?limit=5&${q}`);
        assert.equal(r.status, 200, `${q}: ${r.text}`);
        if (!q.includes('status')) assert.deepEqual(r.body.data.map((d: { deposit_id: number }) => d.deposit_id), first.body.data.map((d: { deposit_id: number }) => d.deposit_id), q);
      }
      const long = await v3.get('/v3/deposits?before=99999999999');
      assert.deepEqual([long.status, long.body.code], [400, 201], long.text);
    });

    test('JSON nested deeper than 64 levels is 502 INVALID_REQUEST_BODY; 64 levels parse', async () => {
      const v3 = V3Client.deposits(s.url, fx.m);
      const nest = (n: number) => `{"country":"BR","amount":"1","x":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
      const deep = await v3.post('/v3/deposits', nest(65));
      assert.deepEqual([deep.status, deep.body.code, deep.body.type], [400, 502, 'INVALID_REQUEST_BODY'], deep.text);
      const ok = await v3.post('/v3/deposits', nest(64));
      // Parsed: a HOSTED deposit (country and amount are enough; the unknown field is ignored).
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.checkout_type, 'HOSTED', ok.text);
      assert.ok(Number.isInteger(ok.body.deposit_id), ok.text);
    });

    test('streamline: NUL in a form field and a JSON body answer in the streamline format, not error 500', async () => {
      const creds = { x_login: fx.m.web_status.login, x_trans_key: fx.m.web_status.trans_key };
      // The form was refused whole, so its `type` is unread: the endpoint's default format (pipes).
      const nul = await formPost(s.url, '/apd/webpaystatus', { ...creds, x_invoice: 'a\u0000b', type: 'JSON' });
      assert.equal(nul.status, 200);
      assert.match(nul.text, /^ERROR\|Invalid parameter: x_invoice: must not contain NUL characters[^|]*\|300$/);
      const json = await fetch(`${s.url}/apd/webcurrencyexchange`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x_login=a' });
      const text = await json.text();
      assert.equal(json.status, 200);
      assert.doesNotMatch(text, /Internal error|500/);
    });
  });
}
