// One endpoint's backlog drains fast: the worker refills a freed per-endpoint slot at once
// instead of waiting for the next poll (before: ~9 per second, 268 of 1,000 after 30 s).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postgresUrl, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant } from '../helpers/clients.ts';
import { addEvent, type Receiver, startReceiver, waitFor } from './helpers.ts';

const BACKLOG = 1000;

// On PostgreSQL, where production runs (embedded PGlite, one WASM connection, claims far slower).
for (const backend of postgresUrl() ? (['pg'] as const) : []) {
  describe(`one endpoint's backlog (${backend})`, () => {
    let s: TestServer;
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
      // Default delivery settings: 4 per endpoint, 16 in all, polls every 500 ms.
      s = await startTestServer(backend, {}, { workers: true });
    });
    after(async () => {
      await s.close();
      await receiver.close();
    });

    test(`${BACKLOG} notifications to one fast endpoint are delivered within 15 s`, async () => {
      const m = await createMerchant(s.url, 'Backlog');
      await s.ctx.db.tx(async (q) => {
        for (let i = 0; i < BACKLOG; i++) await addEvent(q, { merchantId: m.merchant_id, url: `${receiver.url}/backlog` });
      });
      const t0 = Date.now();
      await waitFor('the backlog delivered', async () => {
        const { rows } = await s.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notifications WHERE merchant_id = $1 AND status = 'delivered'`, [m.merchant_id]);
        return rows[0]!.n === BACKLOG;
      }, 15_000);
      const seconds = (Date.now() - t0) / 1000;
      assert.ok(seconds < 15, `${seconds} s`);
      assert.equal(new Set(receiver.received.map((r) => r.id)).size, BACKLOG);
    });
  });
}
