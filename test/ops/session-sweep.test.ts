// Issue 39: expired operator sessions are swept like the panel's, by the session sweep worker
// (src/auth/session-sweep.ts), not only refused when they come back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sweepExpiredSessions } from '../../src/auth/session-sweep.ts';
import { makeOperator, signedIn } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer('pglite');
});
after(async () => {
  await s?.close();
});

test('an operator session idle past its limit is deleted by the sweep; a live one stays and still works', async () => {
  const idle = await makeOperator(s, 'support', 'idle');
  const live = await makeOperator(s, 'support', 'live');
  const idleClient = await signedIn(s, idle);
  const sessions = async () =>
    (await s.ctx.db.query<{ email: string }>('SELECT o.email FROM operator_sessions s JOIN operators o ON o.id = s.operator_id ORDER BY o.email')).rows.map((r) => r.email);
  assert.deepEqual(await sessions(), [idle.email]);
  // 31 minutes later (the idle limit is 30), the other operator signs in.
  const real = s.ctx.now;
  s.ctx.now = () => new Date(real().getTime() + 31 * 60_000);
  try {
    const liveClient = await signedIn(s, live);
    assert.deepEqual((await sessions()).sort(), [idle.email, live.email].sort(), 'both rows exist before the sweep');
    const swept = await sweepExpiredSessions(s.ctx);
    assert.equal(swept.operator, 1);
    assert.deepEqual(await sessions(), [live.email], 'only the idle session is gone');
    assert.equal((await liveClient.request('GET', '/ops/merchants')).status, 200, 'the live session still works');
    assert.equal((await idleClient.request('GET', '/ops/merchants')).url, '/ops/login', 'the idle one is signed out');
  } finally {
    s.ctx.now = real;
  }
});
