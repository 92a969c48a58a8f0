// Delivery end to end: a real server with its worker, events written with recordEvent inside a
// transaction, a real HTTP receiver. Signatures, retries after 500s and timeouts, redirects not
// followed, order per subject, giving up after the maximum age, nothing for a rolled-back change.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import {
  addEvent, commitEvent, FAST_ENV, notificationIdOf, type Receiver, startReceiver, statusOf, verifyCajaSignature, waitFor,
} from './helpers.ts';

for (const backend of backends()) {
  describe(`notification delivery (${backend})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let merchant: Credentials;

    before(async () => {
      receiver = await startReceiver();
      server = await startTestServer(backend, FAST_ENV, { workers: true });
      merchant = await createMerchant(server.url, 'Receiver Co');
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    const attemptsOf = async (id: number) =>
      (await server.ctx.db.query<{ attempt_no: number; status_code: number | null; error: string | null; response_excerpt: string | null; latency_ms: number; url: string }>(
        'SELECT attempt_no, status_code, error, response_excerpt, latency_ms, url FROM notification_attempts WHERE notification_id = $1 ORDER BY id',
        [id],
      )).rows;

    test('a committed event is POSTed once, signed with the merchant secret of its set, and its attempt recorded', async () => {
      receiver.respond = () => ({ status: 200, body: 'thanks' });
      const dep = await commitEvent(server.ctx, { merchantId: merchant.merchant_id, url: `${receiver.url}/deposits` });
      const cash = await commitEvent(server.ctx, {
        merchantId: merchant.merchant_id,
        url: `${receiver.url}/cashouts`,
        subjectType: 'cashout',
        body: 'date=2026-01-01+10%3A00%3A00&external_id=x1&control=ABC&cashout_id=7',
      });
      const depId = await notificationIdOf(server.ctx, dep.eventId);
      const cashId = await notificationIdOf(server.ctx, cash.eventId);
      await waitFor('both delivered', async () => (await statusOf(server.ctx, depId)) === 'delivered' && (await statusOf(server.ctx, cashId)) === 'delivered');

      const d = receiver.received.filter((r) => r.id === depId);
      assert.equal(d.length, 1);
      assert.equal(d[0].path, '/deposits');
      assert.equal(d[0].body, dep.body);
      assert.equal(d[0].headers['content-type'], 'application/json');
      assert.equal(d[0].headers['user-agent'], 'caja-notifications/1');
      assert.equal(d[0].headers['caja-event-id'], String(dep.eventId));
      assert.ok(verifyCajaSignature(d[0].headers['caja-signature'], d[0].body, merchant.deposits.secret_key));
      assert.ok(!verifyCajaSignature(d[0].headers['caja-signature'], d[0].body, merchant.cashouts.secret_key));

      const c = receiver.received.filter((r) => r.id === cashId);
      assert.equal(c.length, 1);
      assert.equal(c[0].headers['content-type'], 'application/x-www-form-urlencoded');
      assert.ok(verifyCajaSignature(c[0].headers['caja-signature'], c[0].body, merchant.cashouts.secret_key));

      const attempts = await attemptsOf(depId);
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0].attempt_no, 1);
      assert.equal(attempts[0].status_code, 200);
      assert.equal(attempts[0].error, null);
      // A loopback receiver may be an internal service: its answer is never recorded (docs/security.md).
      assert.equal(attempts[0].response_excerpt, null);
      assert.equal(attempts[0].url, `${receiver.url}/deposits`);
      assert.ok(attempts[0].latency_ms >= 0);
    });

    test('a change that rolled back sends nothing and leaves no event', async () => {
      await assert.rejects(
        server.ctx.db.tx(async (q) => {
          await addEvent(q, { merchantId: merchant.merchant_id, url: `${receiver.url}/rolled-back`, body: '{"rolled":"back"}' });
          throw new Error('the change failed');
        }),
        /the change failed/,
      );
      // A later committed event through the same worker: once it is delivered, the rolled-back
      // one would have been too.
      const marker = await commitEvent(server.ctx, { merchantId: merchant.merchant_id, url: `${receiver.url}/marker` });
      const markerId = await notificationIdOf(server.ctx, marker.eventId);
      await waitFor('marker delivered', async () => (await statusOf(server.ctx, markerId)) === 'delivered');
      assert.equal(receiver.received.filter((r) => r.path === '/rolled-back').length, 0);
      const { rows } = await server.ctx.db.query(`SELECT 1 FROM notifications WHERE url LIKE '%/rolled-back'`);
      assert.equal(rows.length, 0);
    });

    test('500s are retried until a 2xx; each attempt is recorded', async () => {
      receiver.respond = (r, nth) => (r.path === '/flaky' && nth <= 2 ? { status: 500, body: `broken ${nth}` } : { status: 204 });
      const e = await commitEvent(server.ctx, { merchantId: merchant.merchant_id, url: `${receiver.url}/flaky` });
      const id = await notificationIdOf(server.ctx, e.eventId);
      await waitFor('delivered after retries', async () => (await statusOf(server.ctx, id)) === 'delivered');
      const attempts = await attemptsOf(id);
      assert.deepEqual(attempts.map((a) => [a.attempt_no, a.status_code]), [[1, 500], [2, 500], [3, 204]]);
      assert.equal(attempts[0].error, 'HTTP 500');
      // A loopback receiver may be an internal service: its answer is never recorded (docs/security.md).
      assert.equal(attempts[0].response_excerpt, null);
      assert.equal(receiver.received.filter((r) => r.id === id).length, 3);
    });

    test('a timeout is a failed attempt and is retried', async () => {
      let release!: () => void;
      const hung = new Promise<void>((r) => (release = r));
      receiver.respond = (r, nth) => (r.path === '/slow' && nth === 1 ? { hold: hung } : { status: 200 });
      const e = await commitEvent(server.ctx, { merchantId: merchant.merchant_id, url: `${receiver.url}/slow` });
      const id = await notificationIdOf(server.ctx, e.eventId);
      await waitFor('delivered after a timeout', async () => (await statusOf(server.ctx, id)) === 'delivered');
      release();
      const attempts = await attemptsOf(id);
      assert.equal(attempts.length, 2);
      assert.equal(attempts[0].status_code, null);
      assert.match(attempts[0].error!, /timed out/);
      assert.equal(attempts[1].status_code, 200);
    });

    test('a redirect is not followed and counts as a failure', async () => {
      receiver.respond = (r, nth) =>
        r.path === '/moved' && nth === 1 ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 };
      const e = await commitEvent(server.ctx, { merchantId: merchant.merchant_id, url: `${receiver.url}/moved` });
      const id = await notificationIdOf(server.ctx, e.eventId);
      await waitFor('delivered on the second try', async () => (await statusOf(server.ctx, id)) === 'delivered');
      assert.equal(receiver.received.filter((r) => r.path === '/elsewhere').length, 0);
      const attempts = await attemptsOf(id);
      assert.equal(attempts[0].status_code, 302);
      assert.match(attempts[0].error!, /redirects are not followed/);
    });

    test('notifications of one subject arrive in order, even when an earlier one needs retries', async () => {
      const subjectId = 777_001;
      // The first notification of the deposit fails twice: the next ones must wait for it.
      receiver.respond = (r, nth) => (r.path === '/ordered/1' && nth <= 2 ? { status: 503 } : { status: 200 });
      const ids: number[] = [];
      for (let i = 1; i <= 4; i++) {
        const e = await commitEvent(server.ctx, {
          merchantId: merchant.merchant_id, url: `${receiver.url}/ordered/${i}`, subjectId, body: JSON.stringify({ deposit_id: subjectId, seq: i }),
        });
        ids.push(await notificationIdOf(server.ctx, e.eventId));
      }
      await waitFor('all delivered', async () => (await Promise.all(ids.map((id) => statusOf(server.ctx, id)))).every((s) => s === 'delivered'));
      const seqs = receiver.received.filter((r) => r.path.startsWith('/ordered/')).map((r) => JSON.parse(r.body).seq);
      assert.deepEqual(seqs, [1, 1, 1, 2, 3, 4]);
    });

    test('after its maximum age a notification is marked failed, and the next one of its subject goes out', async () => {
      receiver.respond = (r) => (r.path === '/down' ? { status: 500, body: 'down' } : { status: 200 });
      const subjectId = 777_002;
      const first = await commitEvent(server.ctx, { merchantId: merchant.merchant_id, url: `${receiver.url}/down`, subjectId });
      const second = await commitEvent(server.ctx, { merchantId: merchant.merchant_id, url: `${receiver.url}/up`, subjectId });
      const firstId = await notificationIdOf(server.ctx, first.eventId);
      const secondId = await notificationIdOf(server.ctx, second.eventId);
      await waitFor('failed', async () => (await statusOf(server.ctx, firstId)) === 'failed');
      await waitFor('the next one delivered', async () => (await statusOf(server.ctx, secondId)) === 'delivered');
      const attempts = await attemptsOf(firstId);
      assert.ok(attempts.length >= 2, `${attempts.length} attempts`);
      assert.ok(attempts.every((a) => a.status_code === 500));
      const { rows } = await server.ctx.db.query<{ finished_at: Date | null; last_error: string }>(
        'SELECT finished_at, last_error FROM notifications WHERE id = $1', [firstId],
      );
      assert.ok(rows[0].finished_at);
      assert.equal(rows[0].last_error, 'HTTP 500');
      // The second was not attempted before the first gave up.
      const firstLast = receiver.received.map((r) => r.id).lastIndexOf(firstId);
      const secondFirst = receiver.received.map((r) => r.id).indexOf(secondId);
      assert.ok(secondFirst > firstLast);
    });

    test('a notification to an unreachable port fails its attempt with the connection error', async () => {
      const closed = await startReceiver();
      const url = `${closed.url}/gone`;
      await closed.close();
      const e = await commitEvent(server.ctx, { merchantId: merchant.merchant_id, url });
      const id = await notificationIdOf(server.ctx, e.eventId);
      await waitFor('an attempt', async () => (await attemptsOf(id)).length > 0);
      const [a] = await attemptsOf(id);
      assert.equal(a.status_code, null);
      assert.match(a.error!, /ECONNREFUSED/);
    });
  });
}
