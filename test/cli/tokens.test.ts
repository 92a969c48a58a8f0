// `caja token …` as an operator runs it: a token made by the CLI works against the admin API of a
// real `caja start` on the same data directory within its scopes, rotated (the old one stops),
// revoked (the new one stops).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { installation, type Installation } from './installation.ts';

describe('caja token commands', () => {
  let token: { id: number; token: string };
  let i: Installation;
  let base: string;
  const caja = (args: string[]) => i.caja(args);
  const start = () => i.start();
  const stop = () => i.stop();

  before(async () => {
    i = await installation('caja-cli-tokens-');
    base = i.base;
    const t = await caja(['token', 'create', '--name', 'rates-bot', '--scopes', 'read,rates', '--json']);
    assert.equal(t.code, 0, t.stderr);
    token = JSON.parse(t.stdout);
  });
  after(() => i?.stop());

  test('a CLI token: its scopes hold, rotation stops the old secret, revocation the new one', async () => {
    await start();
    const call = (t: string, method: string, path: string, body?: unknown) =>
      fetch(base + path, { method, headers: { authorization: `Bearer ${t}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    assert.equal((await call(token.token, 'GET', '/admin/exchange_rates')).status, 200);
    assert.equal((await call(token.token, 'PUT', '/admin/exchange_rates', { rates: { COP: '4100' } })).status, 200);
    const refused = await call(token.token, 'POST', '/admin/merchants', { name: 'not allowed' });
    assert.equal(refused.status, 403);
    assert.match((await refused.json()).description, /lacks the scope this call needs \(merchants\)/);
    await stop();
    const rotated = await caja(['token', 'rotate', '--id', String(token.id), '--json']);
    assert.equal(rotated.code, 0, rotated.stderr);
    const fresh = JSON.parse(rotated.stdout).token as string;
    assert.notEqual(fresh, token.token);
    await start();
    assert.equal((await call(token.token, 'GET', '/admin/exchange_rates')).status, 401);
    assert.equal((await call(fresh, 'GET', '/admin/exchange_rates')).status, 200);
    await stop();
    assert.equal((await caja(['token', 'revoke', '--id', String(token.id)])).code, 0);
    await start();
    assert.equal((await call(fresh, 'GET', '/admin/exchange_rates')).status, 401);
  });
});
