// Operators see delivery in /metrics: attempts by result, latency, and the outbox backlog.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import { commitEvent, FAST_ENV, notificationIdOf, type Receiver, startReceiver, statusOf, waitFor } from './helpers.ts';

let server: TestServer;
let receiver: Receiver;
let merchant: Credentials;
before(async () => {
  receiver = await startReceiver();
  server = await startTestServer('pglite', FAST_ENV, { workers: true });
  merchant = await createMerchant(server.url, 'Metrics Co');
});
after(async () => {
  await server?.close();
  await receiver?.close();
});

const metric = (text: string, name: string) => Number(new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

test('delivered and failed attempts, latency and the backlog are exported', async () => {
  let calls = 0;
  receiver.respond = () => (++calls === 1 ? { status: 500, body: 'later' } : { status: 200, body: 'ok' });
  const e = await commitEvent(server.ctx, { merchantId: merchant.merchant_id, url: `${receiver.url}/hook` });
  const id = await notificationIdOf(server.ctx, e.eventId);
  await waitFor('delivered after a retry', async () => (await statusOf(server.ctx, id)) === 'delivered');
  await new Promise((r) => setTimeout(r, 150));
  const text = await (await fetch(`${server.url}/metrics`)).text();
  assert.equal(metric(text, 'caja_notification_attempts_total{result="failed"}'), 1);
  assert.equal(metric(text, 'caja_notification_attempts_total{result="delivered"}'), 1);
  assert.equal(metric(text, 'caja_notification_delivery_seconds_count'), 2);
  assert.equal(metric(text, 'caja_notifications{status="failed"}'), 0);
  assert.equal(metric(text, 'caja_notifications{status="pending"}'), 0);
  assert.equal(metric(text, 'caja_notifications_oldest_pending_seconds'), 0);
  // A notification nobody can take (no worker claims a future row) shows in the backlog.
  await server.ctx.db.query(`UPDATE notifications SET status = 'pending', next_attempt_at = now() + interval '1 hour', created_at = now() - interval '10 minutes' WHERE id = $1`, [id]);
  await new Promise((r) => setTimeout(r, 150));
  const backlog = await (await fetch(`${server.url}/metrics`)).text();
  assert.equal(metric(backlog, 'caja_notifications{status="pending"}'), 1);
  assert.ok(metric(backlog, 'caja_notifications_oldest_pending_seconds') >= 600);
});
