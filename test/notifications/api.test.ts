// The merchant (v3 header auth) and operator endpoints: notifications with their attempts,
// resend, and the event feed with its cursor.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { addEvent, commitEvent, FAST_ENV, notificationIdOf, type Receiver, startReceiver, statusOf, waitFor } from './helpers.ts';

for (const backend of backends()) {
  describe(`notification and event endpoints (${backend})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let acme: Credentials;
    let other: Credentials;
    let client: V3Client;
    let otherClient: V3Client;
    let deliveredId: number;
    let failingId: number;

    before(async () => {
      receiver = await startReceiver();
      receiver.respond = (r) => (r.path === '/failing' ? { status: 500, body: 'nope' } : { status: 200, body: 'ok' });
      server = await startTestServer(backend, { ...FAST_ENV, CAJA_NOTIFY_MAX_AGE_SECONDS: '60' }, { workers: true });
      acme = await createMerchant(server.url, 'Acme');
      other = await createMerchant(server.url, 'Other');
      client = V3Client.deposits(server.url, acme);
      otherClient = V3Client.deposits(server.url, other);
      const ok = await commitEvent(server.ctx, { merchantId: acme.merchant_id, url: `${receiver.url}/ok` });
      const failing = await commitEvent(server.ctx, { merchantId: acme.merchant_id, url: `${receiver.url}/failing` });
      deliveredId = await notificationIdOf(server.ctx, ok.eventId);
      failingId = await notificationIdOf(server.ctx, failing.eventId);
      await waitFor('delivered', async () => (await statusOf(server.ctx, deliveredId)) === 'delivered');
      await waitFor('two failed attempts', async () => {
        const r = await server.ctx.db.query('SELECT 1 FROM notification_attempts WHERE notification_id = $1', [failingId]);
        return r.rows.length >= 2;
      });
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    test('GET /v3/notifications lists the merchant’s own, newest first, with attempts', async () => {
      const r = await client.get('/v3/notifications');
      assert.equal(r.status, 200);
      const ids = r.body.notifications.map((n: any) => n.id);
      assert.deepEqual(ids, [failingId, deliveredId]);
      const [failing, delivered] = r.body.notifications;
      assert.equal(delivered.status, 'delivered');
      assert.equal(delivered.subject_type, 'deposit');
      assert.equal(delivered.kind, 'v3.deposit');
      assert.equal(delivered.attempts.length, 1);
      assert.equal(delivered.attempts[0].status_code, 200);
      // A loopback receiver may be an internal service: its answer is never recorded (docs/security.md).
      assert.equal(delivered.attempts[0].response_excerpt, null);
      assert.equal(delivered.next_attempt_at, null);
      assert.equal(failing.status, 'pending');
      assert.ok(failing.attempts.length >= 2);
      assert.equal(failing.attempts[0].error, 'HTTP 500');
      assert.equal(failing.last_status_code, 500);
      assert.ok(failing.next_attempt_at);

      const page = await client.get('/v3/notifications?limit=1');
      assert.equal(page.body.notifications.length, 1);
      assert.equal(page.body.next_before, String(failingId));
      const next = await client.get(`/v3/notifications?limit=1&before=${page.body.next_before}`);
      assert.deepEqual(next.body.notifications.map((n: any) => n.id), [deliveredId]);
      const byStatus = await client.get('/v3/notifications?status=delivered');
      assert.deepEqual(byStatus.body.notifications.map((n: any) => n.id), [deliveredId]);

      assert.deepEqual((await otherClient.get('/v3/notifications')).body.notifications, []);
      const bad = await client.get('/v3/notifications?status=lost');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 201);
    });

    test('GET /v3/notifications/:id answers the merchant’s own; another merchant’s is 208/404', async () => {
      const r = await client.get(`/v3/notifications/${deliveredId}`);
      assert.equal(r.status, 200);
      assert.equal(r.body.id, deliveredId);
      assert.equal(r.body.body, JSON.parse(r.body.body) && r.body.body);
      const foreign = await otherClient.get(`/v3/notifications/${deliveredId}`);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 208);
      assert.equal(foreign.body.type, 'RESOURCE_NOT_FOUND');
      assert.equal((await client.get('/v3/notifications/999999')).status, 404);
      const unsigned = await fetch(`${server.url}/v3/notifications/${deliveredId}`);
      assert.equal(unsigned.status, 400);
    });

    test('POST /v3/notifications/:id/resend sends a delivered notification again', async () => {
      const before = receiver.received.filter((r) => r.id === deliveredId).length;
      const foreign = await otherClient.post(`/v3/notifications/${deliveredId}/resend`, undefined);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 208);
      const r = await client.post(`/v3/notifications/${deliveredId}/resend`, undefined);
      assert.equal(r.status, 202);
      assert.equal(r.body.status, 'pending');
      assert.ok(r.body.resent_at);
      await waitFor('sent again', () => receiver.received.filter((x) => x.id === deliveredId).length === before + 1);
      await waitFor('delivered again', async () => (await statusOf(server.ctx, deliveredId)) === 'delivered');
      const after = await client.get(`/v3/notifications/${deliveredId}`);
      assert.equal(after.body.attempts.length, 2);
      assert.equal(after.body.attempt_count, 2);
    });

    test('admin lists a merchant’s notifications and resends one', async () => {
      const r = await admin(server.url, 'GET', `/admin/merchants/${acme.merchant_id}/notifications?status=pending`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.notifications.map((n: any) => n.id), [failingId]);
      assert.equal((await admin(server.url, 'GET', '/admin/merchants/99999/notifications')).status, 404);
      assert.equal((await admin(server.url, 'GET', `/admin/merchants/${acme.merchant_id}/notifications`, undefined, 'wrong-token-wrong-token')).status, 401);

      const one = await admin(server.url, 'GET', `/admin/notifications/${deliveredId}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.merchant_id, acme.merchant_id);

      receiver.respond = () => ({ status: 200 });
      const resend = await admin(server.url, 'POST', `/admin/notifications/${failingId}/resend`);
      assert.equal(resend.status, 202);
      await waitFor('the failing one delivered once the endpoint recovered', async () => (await statusOf(server.ctx, failingId)) === 'delivered');
      assert.equal((await admin(server.url, 'POST', '/admin/notifications/999999/resend')).status, 404);
    });

    test('GET /v3/events pages through the merchant’s events in order with a cursor', async () => {
      const mine: number[] = [];
      for (let i = 0; i < 5; i++) {
        mine.push((await commitEvent(server.ctx, { merchantId: acme.merchant_id, url: `${receiver.url}/feed` })).eventId);
        await commitEvent(server.ctx, { merchantId: other.merchant_id, url: `${receiver.url}/feed-other` });
      }
      await assert.rejects(server.ctx.db.tx(async (q) => {
        await addEvent(q, { merchantId: acme.merchant_id, url: `${receiver.url}/never`, type: 'deposit.rolled_back' });
        throw new Error('rollback');
      }));
      // An event shows once every transaction that began before it has ended (a cursor never skips
      // one), so other tests' transactions on the same PostgreSQL may hold them back a moment.
      await waitFor('the committed events in the feed', async () => (await client.get('/v3/events')).body.events.length === 7);
      const all: any[] = [];
      let cursor = '0';
      for (let pages = 0; pages < 10; pages++) {
        const r = await client.get(`/v3/events?after=${cursor}&limit=3`);
        assert.equal(r.status, 200, r.text);
        all.push(...r.body.events);
        if (r.body.events.length === 0) {
          assert.equal(r.body.next_cursor, cursor);
          break;
        }
        cursor = r.body.next_cursor;
      }
      const ids = all.map((e) => e.id);
      assert.deepEqual(ids.slice(-5), mine);
      assert.equal(ids.length, 7);
      assert.ok(all.every((e) => e.type !== 'deposit.rolled_back'));
      const e = all[all.length - 1];
      assert.equal(e.subject_type, 'deposit');
      assert.equal(e.type, 'deposit.status_changed');
      assert.equal(typeof e.subject_id, 'number');
      assert.equal(typeof e.data, 'object');
      assert.ok(!Number.isNaN(Date.parse(e.created_at)));

      const fromStart = await client.get('/v3/events');
      assert.equal(fromStart.body.events.length, 7);
      // The other merchant's last event committed after this one's: held back the same moment.
      await waitFor("the other merchant's committed events in its feed", async () => (await otherClient.get('/v3/events')).body.events.length === 5);
      const otherFeed = await otherClient.get('/v3/events');
      assert.equal(otherFeed.body.events.length, 5);
      assert.ok(otherFeed.body.events.every((x: any) => !ids.includes(x.id)));

      // Another merchant's event id is not a cursor here.
      const foreign = await client.get(`/v3/events?after=${otherFeed.body.events[0].id}`);
      assert.equal(foreign.status, 400);
      assert.equal(foreign.body.code, 201);
      assert.equal((await client.get('/v3/events?after=abc')).status, 400);
      assert.equal((await client.get('/v3/events?limit=0')).status, 400);
    });
  });
}
