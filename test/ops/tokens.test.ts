// Named admin API tokens over HTTP: made with the bootstrap token (CAJA_ADMIN_TOKEN, which keeps
// working), shown once, scoped, rotated and revoked; the audit rows of what a token changed name
// the token by id, and its secret is never listed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin } from '../helpers/clients.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { makeOperator, signedIn } from './helpers.ts';

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
      const read = await admin(s.url, 'GET', '/admin/merchants/999999', undefined, t.token);
      assert.equal(read.status, 404, `read scope reads (no such merchant): ${read.text}`);

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

    test('a token mints, rotates and revokes only tokens whose scopes are within its own', async () => {
      const minter = (await admin(s.url, 'POST', '/admin/tokens', { name: 'minter', scopes: ['tokens'] })).body;
      const wide = (await admin(s.url, 'POST', '/admin/tokens', { name: 'wide', scopes: ['read', 'money', 'tokens'] })).body;
      const before = (await admin(s.url, 'GET', '/admin/tokens')).body.tokens.length;

      const allScopes = await admin(s.url, 'POST', '/admin/tokens', { name: 'escalated', scopes: ['read', 'merchants', 'money', 'rates', 'connectors', 'notifications', 'reconciliation', 'tokens'] }, minter.token);
      assert.equal(allScopes.status, 403, allScopes.text);
      assert.equal(allScopes.body.code, 107);
      assert.match(allScopes.body.message ?? allScopes.text, /read.*merchants|scopes/);
      const oneMore = await admin(s.url, 'POST', '/admin/tokens', { name: 'escalated', scopes: ['tokens', 'money'] }, minter.token);
      assert.equal(oneMore.status, 403, oneMore.text);
      assert.equal((await admin(s.url, 'GET', '/admin/tokens')).body.tokens.length, before, 'nothing was made');

      // Within its own: allowed.
      const narrow = await admin(s.url, 'POST', '/admin/tokens', { name: 'narrow', scopes: ['tokens'] }, minter.token);
      assert.equal(narrow.status, 201, narrow.text);
      const sub = await admin(s.url, 'POST', '/admin/tokens', { name: 'sub', scopes: ['read', 'money'] }, wide.token);
      assert.equal(sub.status, 201, sub.text);

      // Another token's secret, of wider scopes: neither rotated nor revoked; it keeps working.
      const rotate = await admin(s.url, 'POST', `/admin/tokens/${wide.id}/rotate`, undefined, minter.token);
      assert.equal(rotate.status, 403, rotate.text);
      assert.equal(rotate.body.code, 107);
      assert.ok(!('token' in rotate.body));
      const revoke = await admin(s.url, 'DELETE', `/admin/tokens/${wide.id}`, undefined, minter.token);
      assert.equal(revoke.status, 403, revoke.text);
      assert.equal((await admin(s.url, 'GET', '/admin/tokens', undefined, wide.token)).status, 200, 'the wider token still works');
      const audit = await s.ctx.db.query(`SELECT action FROM operator_audit WHERE subject = $1 ORDER BY id`, [`token:${wide.id}`]);
      assert.deepEqual(audit.rows.map((r: any) => r.action), ['token.created']);

      // Within its own scopes: rotated and revoked.
      const rotNarrow = await admin(s.url, 'POST', `/admin/tokens/${narrow.body.id}/rotate`, undefined, minter.token);
      assert.equal(rotNarrow.status, 200, rotNarrow.text);
      assert.equal((await admin(s.url, 'DELETE', `/admin/tokens/${sub.body.id}`, undefined, wide.token)).status, 200);
      // An unknown id stays 404 (not 403).
      assert.equal((await admin(s.url, 'POST', '/admin/tokens/99999/rotate', undefined, minter.token)).status, 404);
    });

    test("the console's audit log shows the id of the token that acted", async () => {
      const bot = (await admin(s.url, 'POST', '/admin/tokens', { name: 'audit-bot', scopes: ['read', 'rates'] })).body;
      assert.equal((await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { CLP: '951.5' } }, bot.token)).status, 200);
      const c = await signedIn(s, await makeOperator(s, 'admin'));
      const page = await c.get('/ops/audit');
      assert.equal(page.status, 200);
      // The row of the rate change names the token by name and by id (two tokens may share a name over time).
      const row = page.html.split('<tr>').find((r) => r.includes('rates.set_manual') && r.includes('token:audit-bot'));
      assert.ok(row, page.html.slice(0, 500));
      assert.match(row!, new RegExp(`token #${bot.id}\\b`));
    });

    test('the names cli and bootstrap are reserved', async () => {
      for (const name of ['cli', 'bootstrap']) {
        const r = await admin(s.url, 'POST', '/admin/tokens', { name, scopes: ['read'] });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.body.code, 201, r.text);
        assert.match(r.text, new RegExp(`name: .*${name}.* reserved`));
      }
      const listed = (await admin(s.url, 'GET', '/admin/tokens')).body.tokens.map((t: any) => t.name);
      assert.ok(!listed.includes('cli') && !listed.includes('bootstrap'));
    });
  });
}
