// The panel and the operator console over HTTP, where they share the back-office kit:
// - a database outage is a 503 page with Retry-After (the shared error page), never a 500; the
//   outage is made by the store failing every query as a failover does (an admin shutdown);
// - a session ends after the kit's idle limit on both (the server's clock is moved on).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { DatabaseUnavailableError } from '../../src/db/unavailable.ts';
import { makeOperator, OpsClient, signedIn } from '../ops/helpers.ts';
import { PanelClient } from '../panel/helpers.ts';
import { createMerchant } from '../helpers/clients.ts';
import { IDLE_MINUTES } from '../../src/backoffice/sessions.ts';
import type { Queryable } from '../../src/db/db.ts';

describe('the panel and the console, through the back-office kit', () => {
  let s: TestServer;
  before(async () => { s = await startTestServer('pglite'); });
  after(async () => { await s?.close(); });

  /** Runs `send` while every query of the store fails as unavailable. */
  async function duringOutage<T>(send: () => Promise<T>): Promise<T> {
    const db = s.ctx.db as Queryable & { query: Queryable['query'] };
    const real = db.query;
    db.query = (async () => { throw new DatabaseUnavailableError('admin_shutdown'); }) as Queryable['query'];
    try {
      return await send();
    } finally {
      db.query = real;
    }
  }

  test('the console: a signed-in page answers 503 with Retry-After, then works again', async () => {
    const op = await makeOperator(s, 'admin');
    const c = await signedIn(s, op);
    const down = await duringOutage(() => c.request('GET', '/ops/merchants'));
    assert.equal(down.status, 503, down.html.slice(0, 300));
    assert.equal(down.headers.get('retry-after'), '2');
    assert.match(down.html, /try again/i);
    const up = await c.request('GET', '/ops/merchants');
    assert.equal(up.status, 200);
  });

  test('the console: the sign-in post answers 503 with Retry-After', async () => {
    const op = await makeOperator(s, 'read_only');
    const c = new OpsClient(s.url);
    await c.request('GET', '/ops/login');
    const down = await duringOutage(() => c.request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password })));
    assert.equal(down.status, 503, down.html.slice(0, 300));
    assert.equal(down.headers.get('retry-after'), '2');
  });

  test('the panel: a signed-in page answers 503 with Retry-After', async () => {
    const m = await createMerchant(s.url, 'Outage');
    const c = new PanelClient(s.url);
    assert.equal((await c.signIn(m.panel.email, m.panel.password)).url, '/panel');
    const down = await duringOutage(() => c.request('GET', '/panel/deposits'));
    assert.equal(down.status, 503, down.html.slice(0, 300));
    assert.equal(down.headers.get('retry-after'), '2');
    assert.equal((await c.request('GET', '/panel/deposits')).status, 200);
  });

  test('the idle limit is the same on both: a session unused for longer is signed out, one used in time is not', async () => {
    const m = await createMerchant(s.url, 'Idle');
    const p = new PanelClient(s.url);
    assert.equal((await p.signIn(m.panel.email, m.panel.password)).url, '/panel');
    const op = await makeOperator(s, 'support');
    const o = await signedIn(s, op);
    const real = s.ctx.now;
    const t0 = real().getTime();
    try {
      s.ctx.now = () => new Date(t0 + (IDLE_MINUTES - 1) * 60_000);
      assert.equal((await p.request('GET', '/panel/deposits')).url, '/panel/deposits', 'the panel, used just in time');
      assert.equal((await o.request('GET', '/ops/merchants')).url, '/ops/merchants', 'the console, used just in time');
      s.ctx.now = () => new Date(t0 + (2 * IDLE_MINUTES) * 60_000 + 1000);
      assert.match((await p.request('GET', '/panel/deposits')).url, /^\/panel\/login/, 'the panel, idle too long');
      assert.match((await o.request('GET', '/ops/merchants')).url, /^\/ops\/login/, 'the console, idle too long');
    } finally {
      s.ctx.now = real;
    }
  });
});
