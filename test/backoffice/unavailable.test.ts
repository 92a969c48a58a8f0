// The panel and the operator console answer a database outage alike: a 503 page with Retry-After
// (the shared back-office error page), never a 500. The outage is made by the store failing every
// query as a failover does (a PostgreSQL admin shutdown, 57P01) once the person is signed in.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { DatabaseUnavailableError } from '../../src/db/unavailable.ts';
import { makeOperator, OpsClient, signedIn } from '../ops/helpers.ts';
import type { Queryable } from '../../src/db/db.ts';

describe('a database outage on the back-office pages', () => {
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
});
