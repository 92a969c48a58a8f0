// Expired panel sessions are deleted by the session sweep worker's pass, not only refused when used:
// idle past the limit, or older than the absolute limit; a live one stays and still works.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sweepExpiredSessions } from '../../src/auth/session-sweep.ts';
import { ABSOLUTE_HOURS, IDLE_MINUTES } from '../../src/panel/services/auth.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant } from '../helpers/clients.ts';
import { PanelClient } from './helpers.ts';

for (const backend of backends()) {
  describe(`panel session sweep (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    test('the worker pass deletes idle and too-old sessions and keeps the live one', async () => {
      const m = await createMerchant(s.url, 'Sweep');
      const users = [new PanelClient(s.url), new PanelClient(s.url), new PanelClient(s.url)];
      for (const u of users) assert.equal((await u.signIn(m.panel.email, m.panel.password)).status, 200);
      const count = async () => (await s.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM panel_sessions WHERE merchant_id = $1', [m.merchant_id])).rows[0]!.n;
      assert.equal(await count(), 3);
      const rows = (await s.ctx.db.query<{ id_hash: string }>('SELECT id_hash FROM panel_sessions WHERE merchant_id = $1 ORDER BY created_at', [m.merchant_id])).rows;
      await s.ctx.db.query(`UPDATE panel_sessions SET last_seen_at = now() - make_interval(mins => $2) WHERE id_hash = $1`, [rows[0]!.id_hash, IDLE_MINUTES + 1]);
      await s.ctx.db.query(`UPDATE panel_sessions SET created_at = now() - make_interval(hours => $2) WHERE id_hash = $1`, [rows[1]!.id_hash, ABSOLUTE_HOURS + 1]);
      await sweepExpiredSessions(s.ctx);
      const left = (await s.ctx.db.query<{ id_hash: string }>('SELECT id_hash FROM panel_sessions WHERE merchant_id = $1', [m.merchant_id])).rows;
      assert.deepEqual(left.map((r) => r.id_hash), [rows[2]!.id_hash]);
      // The one left is someone's live session: its page still opens.
      const live = await Promise.all(users.map((u) => u.get('/panel')));
      assert.equal(live.filter((p) => p.status === 200 && p.url === '/panel').length, 1);
    });
  });
}
