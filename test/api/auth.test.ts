// Every branch of the three authentication styles, through real HTTP where an endpoint exists,
// and directly against the hook otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, hmac, V3Client, xDateNow, type Credentials } from '../helpers/clients.ts';
import { cashoutAuth } from '../../src/api/auth/cashout-body.ts';
import { StreamlineAuthError, streamlineAuth } from '../../src/auth/streamline.ts';
import { v3HeaderAuth } from '../../src/api/auth/v3-headers.ts';
import { ApiError } from '../../src/http/errors.ts';
import { toStreamlineError } from '../../src/api/streamline/face.ts';

async function raw(url: string, headers: Record<string, string>) {
  const r = await fetch(url, { headers });
  return { status: r.status, body: (await r.json()) as { code: number; description: string; type?: string } };
}

for (const backend of backends()) {
  describe(`authentication (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let other: Credentials;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Acme');
      other = await createMerchant(s.url, 'Other');
    });
    after(() => s.close());

    const signed = (login: string, secret: string, xDate = xDateNow(), scheme = 'SVC', body = '') => ({
      'X-Date': xDate,
      'X-Login': login,
      Authorization: `${scheme} ${hmac(secret, xDate + login + body)}`,
    });

    test('a correctly signed request passes, with SVC or D24 and either hex case', async () => {
      for (const scheme of ['SVC', 'D24']) {
        const r = await raw(`${s.url}/v3/me`, signed(m.deposits.login, m.deposits.secret_key, xDateNow(), scheme));
        assert.equal(r.status, 200);
        assert.equal((r.body as any).merchant_id, m.merchant_id);
      }
      const h = signed(m.deposits.login, m.deposits.secret_key);
      h.Authorization = h.Authorization.replace(/SVC (\w+)/, (_, x) => `SVC ${x.toUpperCase()}`);
      assert.equal((await raw(`${s.url}/v3/me`, h)).status, 200);
    });

    test('X-Date with offset and milliseconds is accepted', async () => {
      const d = new Date();
      const local = new Date(d.getTime() - 3 * 3600_000).toISOString().replace('Z', '-03:00');
      assert.equal((await raw(`${s.url}/v3/me`, signed(m.deposits.login, m.deposits.secret_key, local))).status, 200);
      const compact = new Date(d.getTime() + 5.5 * 3600_000).toISOString().replace(/\.\d+Z$/, '+0530');
      assert.equal((await raw(`${s.url}/v3/me`, signed(m.deposits.login, m.deposits.secret_key, compact))).status, 200);
    });

    test('101 for each missing header', async () => {
      for (const name of ['X-Date', 'X-Login', 'Authorization']) {
        const h: Record<string, string> = signed(m.deposits.login, m.deposits.secret_key);
        delete h[name];
        const r = await raw(`${s.url}/v3/me`, h);
        assert.equal(r.status, 400, name);
        assert.equal(r.body.code, 101, name);
        assert.equal(r.body.type, 'MISSING_REQUIRED_HEADER');
        assert.match(r.body.description, new RegExp(name));
      }
    });

    test('105 for each empty header', async () => {
      for (const name of ['X-Date', 'X-Login', 'Authorization']) {
        const h: Record<string, string> = { ...signed(m.deposits.login, m.deposits.secret_key), [name]: ' ' };
        const r = await raw(`${s.url}/v3/me`, h);
        assert.equal(r.status, 400, name);
        assert.equal(r.body.code, 105, name);
        assert.equal(r.body.type, 'EMPTY_HEADER_VALUE');
      }
    });

    test('100 (HTTP 401) for an unknown login', async () => {
      const r = await raw(`${s.url}/v3/me`, signed('nobody', m.deposits.secret_key));
      assert.equal(r.status, 401);
      assert.deepEqual([r.body.code, r.body.type], [100, 'INVALID_CREDENTIALS']);
    });

    test('102 for a wrong signature, another merchant\'s secret, a malformed or unknown scheme', async () => {
      const wrong = await raw(`${s.url}/v3/me`, signed(m.deposits.login, other.deposits.secret_key));
      assert.deepEqual([wrong.status, wrong.body.code], [400, 102]);
      const h = signed(m.deposits.login, m.deposits.secret_key);
      for (const auth of [h.Authorization.slice(0, -2), h.Authorization.replace('SVC', 'HMAC'), h.Authorization.replace('SVC ', '')]) {
        const r = await raw(`${s.url}/v3/me`, { ...h, Authorization: auth });
        assert.deepEqual([r.status, r.body.code], [400, 102], auth);
      }
    });

    test('103 for an X-Date beyond 5 minutes either way, or not a date', async () => {
      for (const xDate of [xDateNow(-301), xDateNow(400), '2026-13-01T00:00:00Z', 'yesterday', '2026-01-01 10:00:00']) {
        const r = await raw(`${s.url}/v3/me`, signed(m.deposits.login, m.deposits.secret_key, xDate));
        assert.deepEqual([r.status, r.body.code, r.body.type], [400, 103, 'INVALID_DATE_RANGE'], xDate);
      }
      const ok = await raw(`${s.url}/v3/me`, signed(m.deposits.login, m.deposits.secret_key, xDateNow(-290)));
      assert.equal(ok.status, 200);
    });

    test('the signature covers the raw body bytes exactly as received', async () => {
      // Escaped slashes and \u escapes must verify as sent; the same JSON re-serialised must not.
      const body = '{"city":"S\\u00e3o Paulo","url":"https:\\/\\/shop.example\\/ok","amount":123456789012345678.12}';
      const run = async (signedBody: string) => {
        const request = { headers: signed(m.deposits.login, m.deposits.secret_key, xDateNow(), 'SVC', signedBody), rawBody: Buffer.from(body) };
        const lower = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
        try {
          await v3HeaderAuth(s.ctx, 'deposits')({ ...request, headers: lower } as unknown as FastifyRequest);
          return 'ok';
        } catch (err) {
          return (err as ApiError).code;
        }
      };
      assert.equal(await run(body), 'ok');
      assert.equal(await run(JSON.stringify(JSON.parse(body))), 102);
    });

    test('v5 authenticates with the cashouts key, not the deposits key', async () => {
      assert.equal((await raw(`${s.url}/v5/me`, signed(m.cashouts.login, m.cashouts.secret_key))).status, 200);
      const r = await raw(`${s.url}/v5/me`, signed(m.deposits.login, m.deposits.secret_key));
      assert.deepEqual([r.status, r.body.code], [401, 100]);
    });

    test('rotation with grace_hours 0: the old secret is refused at once and the new one works', async () => {
      const before = V3Client.deposits(s.url, m);
      assert.equal((await before.get('/v3/me')).status, 200);
      const rotated = await admin(s.url, 'POST', `/admin/merchants/${m.merchant_id}/rotate`, { set: 'deposits', grace_hours: 0 });
      assert.equal(rotated.status, 200);
      assert.ok(rotated.body.deposits.secret_key);
      assert.notEqual(rotated.body.deposits.secret_key, m.deposits.secret_key);
      assert.equal(rotated.body.cashouts, undefined, 'only the rotated set is shown');
      const stale = await before.get('/v3/me');
      assert.equal(stale.status, 401, 'old login is gone');
      const staleSecret = new V3Client(s.url, rotated.body.deposits.login, m.deposits.secret_key);
      assert.equal((await staleSecret.get('/v3/me')).body.code, 102);
      const fresh = new V3Client(s.url, rotated.body.deposits.login, rotated.body.deposits.secret_key);
      assert.equal((await fresh.get('/v3/me')).status, 200);
      m = { ...m, deposits: rotated.body.deposits };
    });

    describe('cashout body credentials and Payload-Signature', () => {
      const call = async (body: Record<string, unknown> | string, signature?: string) => {
        const rawBody = typeof body === 'string' ? body : JSON.stringify(body);
        const request = {
          body: typeof body === 'string' ? undefined : body,
          rawBody: Buffer.from(rawBody),
          headers: signature === undefined ? {} : { 'payload-signature': signature },
        } as unknown as FastifyRequest;
        try {
          await cashoutAuth(s.ctx)(request);
          return { ok: true as const, merchant: request.merchant };
        } catch (err) {
          assert.ok(err instanceof ApiError);
          return { ok: false as const, code: err.code, status: err.httpStatus, message: err.message };
        }
      };
      const body = () => ({ login: m.cashouts.login, pass: m.cashouts.pass, cashout_id: 1 });

      test('passes with the right login, pass and signature (either case)', async () => {
        const b = body();
        const sig = hmac(m.cashouts.secret_key, JSON.stringify(b));
        const r = await call(b, sig);
        assert.equal(r.ok, true);
        assert.equal(r.ok && r.merchant?.id, m.merchant_id);
        assert.equal((await call(b, sig.toUpperCase())).ok, true);
      });
      test('401 for a wrong pass, unknown login, or missing credentials', async () => {
        for (const b of [{ ...body(), pass: 'wrong' }, { ...body(), login: 'nobody' }, { cashout_id: 1 }, { ...body(), pass: '' }]) {
          const r = await call(b, hmac(m.cashouts.secret_key, JSON.stringify(b)));
          assert.deepEqual([r.ok, !r.ok && r.code, !r.ok && r.status], [false, 401, 401], JSON.stringify(b));
        }
      });
      test('401 for a missing or wrong Payload-Signature', async () => {
        const b = body();
        const missing = await call(b);
        assert.equal(!missing.ok && missing.code, 401);
        assert.match(!missing.ok ? missing.message : '', /Payload-Signature/);
        const wrong = await call(b, hmac(m.deposits.secret_key, JSON.stringify(b)));
        assert.equal(!wrong.ok && wrong.code, 401);
      });
      test('300 when the body is not an object', async () => {
        const r = await call('[]', 'x');
        assert.equal(!r.ok && r.code, 300);
      });
    });

    describe('streamline body credentials', () => {
      const attempt = async (login?: string, key?: string, sets: ('deposits' | 'web_status')[] = ['deposits']) => {
        try {
          return { ok: true as const, caller: await streamlineAuth(s.ctx, login, key, sets) };
        } catch (err) {
          // The check's own error kind, answered in the face's codes by the face's mapping.
          assert.ok(err instanceof StreamlineAuthError);
          return { ok: false as const, code: toStreamlineError(err)!.errorCode };
        }
      };
      test('deposits credentials pass and carry the deposits secret and login', async () => {
        const r = await attempt(m.deposits.login, m.deposits.trans_key);
        assert.equal(r.ok, true);
        assert.equal(r.ok && r.caller.secret, m.deposits.secret_key);
        assert.equal(r.ok && r.caller.depositsLogin, m.deposits.login);
      });
      test('web-status credentials pass only where that set is accepted', async () => {
        const ws = await attempt(m.web_status.login, m.web_status.trans_key, ['web_status']);
        assert.equal(ws.ok, true);
        assert.equal(ws.ok && ws.caller.depositsLogin, m.deposits.login, 'signatures use the deposits login');
        assert.equal(ws.ok && ws.caller.secret, m.deposits.secret_key);
        assert.deepEqual(await attempt(m.web_status.login, m.web_status.trans_key, ['deposits']), { ok: false, code: 401 });
      });
      test('401 for a wrong key or login, 301 for empty ones', async () => {
        assert.deepEqual(await attempt(m.deposits.login, 'wrong'), { ok: false, code: 401 });
        assert.deepEqual(await attempt('nobody', m.deposits.trans_key), { ok: false, code: 401 });
        assert.deepEqual(await attempt('', m.deposits.trans_key), { ok: false, code: 301 });
        assert.deepEqual(await attempt(m.deposits.login, undefined), { ok: false, code: 301 });
      });
    });
  });
}
