// One endpoint's backlog drains without waiting for the polls: the worker refills a freed
// per-endpoint slot at once instead of waiting for the next poll (before: ~9 per second with
// polls every 500 ms, 268 of 1,000 after 30 s).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant } from '../helpers/clients.ts';
import { addEvent, type Receiver, startReceiver, waitFor } from './helpers.ts';

// On PostgreSQL, where production runs, 1,000; on the embedded PGlite (one WASM connection, claims
// far slower) 200, still 50 polls' worth of 4.
for (const backend of backends()) {
  const BACKLOG = backend === 'pg' ? 1000 : 200;
  describe(`one endpoint's backlog (${backend})`, () => {
    let s: TestServer;
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
      // Default delivery limits (4 per endpoint, 16 in all), and a poll every 2 s: drained by the
      // polls alone, 4 at a time, the backlog would take 50 polls (100 s, PGlite) or 250 (500 s).
      // What is checked is that after the first poll it does not wait for the next ones, not how
      // fast it goes (npm run bench measures that).
      s = await startTestServer(backend, { CAJA_NOTIFY_POLL_MS: '2000' }, { workers: true });
    });
    after(async () => {
      await s.close();
      await receiver.close();
    });

    test(`${BACKLOG} notifications to one fast endpoint are delivered without waiting for the polls`, async () => {
      const m = await createMerchant(s.url, 'Backlog');
      await s.ctx.db.tx(async (q) => {
        for (let i = 0; i < BACKLOG; i++) await addEvent(q, { merchantId: m.merchant_id, url: `${receiver.url}/backlog` });
      });
      // 2 s on a quiet machine (6 s on PGlite), 20 s seen under CI's load; at most 60 s, 30 polls'
      // time, or 120 s on PostgreSQL, under half of what the polls alone would take.
      await waitFor('the backlog delivered', async () => {
        const { rows } = await s.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notifications WHERE merchant_id = $1 AND status = 'delivered'`, [m.merchant_id]);
        return rows[0]!.n === BACKLOG;
      }, backend === 'pg' ? 120_000 : 60_000);
      assert.equal(new Set(receiver.received.map((r) => r.id)).size, BACKLOG);
    });
  });
}
