// Named admin API tokens over HTTP: made with the bootstrap token (CAJA_ADMIN_TOKEN, which keeps
// working), shown once, scoped, rotated and revoked; the audit rows of what a token changed name
// the token by id, and its secret is never listed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin } from '../helpers/clients.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';

for (const backend of backends()) {
  describe(`admin tokens (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    test('made, scoped, audited by id, rotated, revoked', async () => {
      const made = await admin(s.url, 'POST', '/admin/tokens', { name: 'finance-bot', scopes: ['read', 'rates', 'money'] });
      assert.equal(made.status, 201, made.text);
      const t = made.body;
      assert.match(t.token, /^caja_at_[\w-]{43}$/);
      assert.deepEqual(t.scopes, ['read', 'rates', 'money']);
      const listed = await admin(s.url, 'GET', '/admin/tokens');
      assert.equal(listed.status, 200);
      assert.ok(!listed.text.includes(t.token), 'the secret is never listed');

      const put = await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { CLP: '950.5' } }, t.token);
      assert.equal(put.status, 200, put.text);
      const row = await s.ctx.db.query(`SELECT token_id, actor FROM operator_audit WHERE action = 'rates.set_manual' ORDER BY id DESC LIMIT 1`);
      assert.deepEqual(row.rows[0], { token_id: t.id, actor: 'token:finance-bot' });

      // Scopes: no 'merchants', no 'tokens'.
      const denied = await admin(s.url, 'POST', '/admin/merchants', { name: 'x' }, t.token);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.code, 107);
      assert.equal((await admin(s.url, 'GET', '/admin/tokens', undefined, t.token)).status, 403);
      assert.equal((await admin(s.url, 'GET', '/admin/merchants/1', undefined, t.token)).status !== 403, true, 'read scope reads');

      const dup = await admin(s.url, 'POST', '/admin/tokens', { name: 'finance-bot', scopes: ['read'] });
      assert.equal(dup.status, 400);
      const badScope = await admin(s.url, 'POST', '/admin/tokens', { name: 'other', scopes: ['read', 'everything'] });
      assert.equal(badScope.status, 400);
      assert.match(badScope.text, /everything/);

      const rotated = await admin(s.url, 'POST', `/admin/tokens/${t.id}/rotate`);
      assert.equal(rotated.status, 200);
      assert.equal((await admin(s.url, 'GET', '/admin/exchange_rates', undefined, t.token)).status, 401);
      assert.equal((await admin(s.url, 'GET', '/admin/exchange_rates', undefined, rotated.body.token)).status, 200);
      const revoked = await admin(s.url, 'DELETE', `/admin/tokens/${t.id}`);
      assert.equal(revoked.status, 200);
      assert.ok(revoked.body.revoked_at);
      assert.equal((await admin(s.url, 'GET', '/admin/exchange_rates', undefined, rotated.body.token)).status, 401);
      assert.equal((await admin(s.url, 'DELETE', `/admin/tokens/${t.id}`)).status, 404);
      const actions = await s.ctx.db.query(`SELECT action, token_id FROM operator_audit WHERE subject = $1 ORDER BY id`, [`token:${t.id}`]);
      assert.deepEqual(actions.rows, [{ action: 'token.created', token_id: 0 }, { action: 'token.rotated', token_id: 0 }, { action: 'token.revoked', token_id: 0 }]);
    });
  });
}
