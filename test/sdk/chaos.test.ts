// Staging's chaos mode: a merchant with sandbox_chaos gets some notifications twice and some
// late (so notifications of different subjects arrive out of order), with the odds and delays
// docs/notifications.md states; without it, one timely notification per event. Production
// refuses the setting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Caja } from '../../sdk/src/index.ts';
import { CHAOS } from '../../src/notifications/outbox.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { startReceiver, type Receiver } from '../notifications/helpers.ts';

const PAYER = { document: cpf('529982247'), first_name: 'Ana', last_name: 'Lima', email: 'ana@example.com' };
const EVENTS = 40;

for (const backend of backends()) {
  describe(`sandbox chaos mode (${backend})`, () => {
    let s: TestServer;
    let receiver: Receiver;
    before(async () => {
      s = await startTestServer(backend, { CAJA_NOTIFY_POLL_MS: '100' }, { workers: true });
      receiver = await startReceiver();
    });
    after(async () => {
      await s.close();
      await receiver.close();
    });

    /** Approves `n` deposits of a merchant and returns the outbox rows of their notifications. */
    async function approveMany(m: Credentials, n: number) {
      const caja = new Caja({ baseUrl: s.url, deposits: { login: m.deposits.login, secretKey: m.deposits.secret_key } });
      const ids: number[] = [];
      for (let i = 0; i < n; i++) {
        const d = await caja.deposits.create({ country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'IX', payer: PAYER });
        await caja.sandbox.deposits.approve(d.deposit_id!);
        ids.push(d.deposit_id!);
      }
      const { rows } = await s.ctx.db.query<{ event_id: number; delay: number }>(
        `SELECT event_id, extract(epoch FROM next_attempt_at - created_at)::float AS delay FROM notifications n
         WHERE merchant_id = $1 AND kind = 'v3.deposit' ORDER BY id`,
        [m.merchant_id],
      );
      return { ids, rows };
    }

    test('on: duplicates and delays at the documented odds; every copy is delivered, signed, with its event id', async () => {
      const m = await createMerchant(s.url, 'Chaos', { notification_url: `${receiver.url}/chaos` });
      const patched = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { sandbox_chaos: true });
      assert.equal(patched.body.sandbox_chaos, true, patched.text);
      const { rows } = await approveMany(m, EVENTS);
      const perEvent = new Map<number, number>();
      for (const r of rows) perEvent.set(r.event_id, (perEvent.get(r.event_id) ?? 0) + 1);
      assert.equal(perEvent.size, EVENTS);
      const duplicated = [...perEvent.values()].filter((c) => c === 2).length;
      assert.ok([...perEvent.values()].every((c) => c === 1 || c === 2));
      const delayed = rows.filter((r) => r.delay >= CHAOS.delayMinSeconds - 0.01);
      assert.ok(rows.every((r) => r.delay < 0.01 || (r.delay >= CHAOS.delayMinSeconds - 0.01 && r.delay <= CHAOS.delayMaxSeconds + 0.01)), 'delays within the documented bounds');
      // Generous bounds around the expectation (0.3 × 40 = 12 duplicates; half the rows delayed),
      // so the test fails on a wrong rule, not on bad luck (each bound holds with p > 0.999).
      assert.ok(duplicated >= 3 && duplicated <= 24, `duplicated: ${duplicated}`);
      assert.ok(delayed.length >= rows.length * 0.2 && delayed.length <= rows.length * 0.8, `delayed: ${delayed.length} of ${rows.length}`);
      // Every copy arrives: the duplicate carries the same body and Caja-Event-Id.
      // Separates copies delivered after their delay (at most 10 s) on a loaded machine from a copy never delivered.
      const deadline = Date.now() + (CHAOS.delayMaxSeconds + 30) * 1000;
      while (receiver.received.filter((r) => r.path === '/chaos').length < rows.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      const got = receiver.received.filter((r) => r.path === '/chaos');
      assert.equal(got.length, rows.length);
      const byEvent = new Map<string, Set<string>>();
      for (const r of got) byEvent.set(String(r.headers['caja-event-id']), (byEvent.get(String(r.headers['caja-event-id'])) ?? new Set()).add(r.body));
      assert.equal(byEvent.size, EVENTS);
      assert.ok([...byEvent.values()].every((bodies) => bodies.size === 1), 'copies of an event carry the same body');
      const order = got.map((r) => Number(r.headers['caja-event-id']));
      assert.notDeepEqual(order, [...order].sort((a, b) => a - b), 'events arrive out of order');
    });

    test('off (the default): one notification per event, due at once', async () => {
      const m = await createMerchant(s.url, 'Calm', { notification_url: `${receiver.url}/calm` });
      const { rows } = await approveMany(m, 10);
      assert.equal(rows.length, 10);
      assert.ok(rows.every((r) => r.delay < 0.01));
    });
  });
}

describe('sandbox chaos mode in production', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('pglite', { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://caja.example' });
  });
  after(() => s.close());
  test('is refused', async () => {
    const m = await createMerchant(s.url, 'Live');
    const r = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { sandbox_chaos: true });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.details, ['sandbox_chaos: staging only']);
  });
});
