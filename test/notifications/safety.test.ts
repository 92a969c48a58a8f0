// Safety of outgoing calls: the address classification (unit), connection pinning, production
// refusing loopback, kept-alive connections the endpoint closed, per-origin limits so that one
// slow merchant does not hold up the others, and the retry schedule's jitter.
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { refuseAddress, RefusedTarget, resolveTarget } from '../../src/notifications/address-guard.ts';
import { postNotification } from '../../src/notifications/http-post.ts';
import { OriginGate, retryDelaySeconds } from '../../src/notifications/backoff.ts';
import { NotificationWorker } from '../../src/notifications/worker.ts';
import { capabilitiesOf, type Config } from '../../src/config/config.ts';
import type { AppContext } from '../../src/config/context.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant } from '../helpers/clients.ts';
import { commitEvent, FAST_ENV, notificationIdOf, type Receiver, startReceiver, statusOf, waitFor } from './helpers.ts';

describe('address classification', () => {
  const refused = [
    '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.100.100.200',
    '0.0.0.0', '255.255.255.255', '224.0.0.1', '192.0.2.10', '198.18.0.1', '240.0.0.1',
    '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254',
    '64:ff9b::7f00:1', '2002:7f00:1::', 'ff02::1',
  ];
  const allowed = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'];

  test('production allows public unicast addresses only', () => {
    for (const a of refused) assert.ok(refuseAddress(a, 'strict'), `${a} must be refused`);
    for (const a of allowed) assert.equal(refuseAddress(a, 'strict'), null, `${a} must be allowed`);
    assert.ok(refuseAddress('not-an-ip', 'strict'));
  });

  test('staging also allows loopback, but not private networks or the metadata address', () => {
    for (const a of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) assert.equal(refuseAddress(a, 'relaxed'), null, a);
    for (const a of ['10.0.0.1', '192.168.0.10', '169.254.169.254', 'fd00:ec2::254', '100.100.100.200']) assert.ok(refuseAddress(a, 'relaxed'), a);
  });

  test('URLs: https only in production, http too in staging, never credentials or other schemes', async () => {
    const publicDns = async () => [{ address: '93.184.216.34', family: 4 }];
    await assert.rejects(resolveTarget('http://example.com/n', 'strict', publicDns), (e: RefusedTarget) => e.permanent && /https/.test(e.message));
    assert.equal((await resolveTarget('https://example.com/n', 'strict', publicDns)).address, '93.184.216.34');
    assert.equal((await resolveTarget('http://example.com/n', 'relaxed', publicDns)).address, '93.184.216.34');
    await assert.rejects(resolveTarget('ftp://example.com/n', 'relaxed', publicDns), (e: RefusedTarget) => e.permanent);
    await assert.rejects(resolveTarget('https://u:p@example.com/n', 'strict', publicDns), (e: RefusedTarget) => e.permanent);
    await assert.rejects(resolveTarget('not a url', 'strict', publicDns), (e: RefusedTarget) => e.permanent);
  });

  test('every resolved address must be allowed, and IP literals are checked too', async () => {
    const mixed = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }];
    await assert.rejects(resolveTarget('https://rebind.example/n', 'strict', mixed), (e: RefusedTarget) => !e.permanent && /10\.0\.0\.5/.test(e.message));
    const metadata = async () => [{ address: '169.254.169.254', family: 4 }];
    await assert.rejects(resolveTarget('https://metadata.example/', 'strict', metadata), /linkLocal/);
    await assert.rejects(resolveTarget('https://127.0.0.1/', 'strict'), /loopback/);
    await assert.rejects(resolveTarget('https://[::1]:8443/', 'strict'), /loopback/);
    await assert.rejects(resolveTarget('https://[::ffff:7f00:1]/', 'strict'), /loopback/);
    await assert.rejects(resolveTarget('http://169.254.169.254/latest/meta-data', 'relaxed'), /linkLocal/);
    const failing = async () => { throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' }); };
    await assert.rejects(resolveTarget('https://missing.example/', 'strict', failing), (e: RefusedTarget) => !e.permanent && /ENOTFOUND/.test(e.message));
  });
});

describe('pinned connections', () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  test('the request goes to the checked address whatever the name resolves to later', async () => {
    const port = new URL(receiver.url).port;
    const url = new URL(`http://merchant.example:${port}/hook?x=1`);
    // As if merchant.example had resolved to 127.0.0.1 at check time; DNS is not asked again.
    const r = await postNotification({ url, hostname: 'merchant.example', address: '127.0.0.1', family: 4 }, { 'Content-Type': 'application/json' }, '{"a":1}', 2000);
    assert.equal(r.statusCode, 200);
    const got = receiver.received.at(-1)!;
    assert.equal(got.path, '/hook?x=1');
    assert.equal(got.headers.host, `merchant.example:${port}`);
    assert.equal(got.body, '{"a":1}');
  });
});

describe('kept-alive connections', () => {
  test('an idle connection the endpoint closed as it was reused costs no attempt: the request goes again on a new one', async () => {
    // An endpoint whose idle timeout ends a kept-alive connection just as the next notification
    // is written on it (the close and the request cross): the request is never read. Here the
    // second request on any connection is reset unread; a fresh connection is answered.
    const requests: string[] = [];
    const server = net.createServer((socket) => {
      let served = 0;
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = buffered.slice(end + 4, end + 4 + length);
        buffered = '';
        if (served++ > 0) {
          socket.resetAndDestroy();
          return;
        }
        requests.push(body);
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
      const target = { url, hostname: '127.0.0.1', address: '127.0.0.1', family: 4 as const };
      const first = await postNotification(target, { 'Content-Type': 'application/json' }, '{"n":1}', 2000);
      assert.equal(first.statusCode, 200);
      // The first connection is idle in the pool now, and is reused for this one.
      const second = await postNotification(target, { 'Content-Type': 'application/json' }, '{"n":2}', 2000);
      assert.equal(second.error, null);
      assert.equal(second.statusCode, 200);
      assert.deepEqual(requests, ['{"n":1}', '{"n":2}']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a reused connection that fails once the endpoint began to answer is not tried again', async () => {
    // The endpoint read this request: sending it again would be a second delivery, not a repair.
    let requests = 0;
    const server = net.createServer((socket) => {
      let served = 0;
      socket.on('data', () => {
        requests++;
        if (served++ === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
        // Headers promising a body that never comes, then a reset.
        else socket.write('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 100\r\n\r\npartial', () => socket.resetAndDestroy());
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
      const target = { url, hostname: '127.0.0.1', address: '127.0.0.1', family: 4 as const };
      assert.equal((await postNotification(target, {}, '{}', 2000)).statusCode, 200);
      const r = await postNotification(target, {}, '{}', 2000);
      assert.equal(r.statusCode, 500);
      assert.equal(requests, 2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('retry schedule and per-origin gate', () => {
  test('delays follow the schedule within ±20%, the last step repeating', () => {
    const schedule = [30, 60, 300];
    const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);
    near(retryDelaySeconds(1, schedule, () => 0), 24);
    near(retryDelaySeconds(1, schedule, () => 1), 36);
    near(retryDelaySeconds(2, schedule, () => 0.5), 60);
    near(retryDelaySeconds(9, schedule, () => 0.5), 300);
    for (let i = 0; i < 100; i++) {
      const d = retryDelaySeconds(3, schedule);
      assert.ok(d >= 240 && d <= 360);
    }
  });

  test('an origin at its limit or failing is excluded from claims; a 4xx does not pause it', () => {
    let now = 1000;
    const gate = new OriginGate(2, 5000, () => now);
    gate.start('https://a');
    assert.deepEqual(gate.excluded(), []);
    gate.start('https://a');
    assert.deepEqual(gate.excluded(), ['https://a']);
    gate.finish('https://a', true);
    assert.deepEqual(gate.excluded(), []);
    gate.finish('https://a', false);
    assert.deepEqual(gate.excluded(), ['https://a']);
    assert.equal(gate.nextReopenMs(), 250);
    now += 251;
    assert.deepEqual(gate.excluded(), []);
    gate.start('https://a');
    gate.finish('https://a', false);
    assert.equal(gate.nextReopenMs(), 500, 'doubles after consecutive failures');
    for (let i = 0; i < 20; i++) {
      gate.start('https://a');
      gate.finish('https://a', false);
    }
    assert.equal(gate.nextReopenMs(), 5000, 'capped');
    gate.start('https://a');
    gate.finish('https://a', true);
    assert.equal(gate.nextReopenMs(), null);
  });
});

for (const backend of backends()) {
  describe(`delivery safety (${backend})`, () => {
    // One server without its own worker; each test runs a worker with the configuration it
    // needs on the server's store (starting a second embedded store is what costs time here).
    let server: TestServer;
    let receiver: Receiver;
    let slow: Receiver;
    let worker: NotificationWorker | undefined;
    const withConfig = (env: Config['env'], n: Partial<Config['notifications']>): AppContext => ({
      ...server.ctx,
      config: { ...server.ctx.config, env, ...capabilitiesOf(env), notifications: { ...server.ctx.config.notifications, ...n } },
    });

    before(async () => {
      receiver = await startReceiver();
      slow = await startReceiver();
      server = await startTestServer(backend, FAST_ENV);
    });
    after(async () => {
      await worker?.stop();
      await server?.close();
      await receiver?.close();
      await slow?.close();
    });

    test('production refuses to call loopback, by address or by name, and never reaches it', async () => {
      const production = { ctx: withConfig('production', {}) };
      worker = new NotificationWorker(production.ctx, { onError: () => {} });
      const m = await createMerchant(server.url, 'Prod');
      const port = new URL(receiver.url).port;
      const ids: number[] = [];
      for (const url of [`https://127.0.0.1:${port}/prod`, `https://localhost:${port}/prod`, `${receiver.url}/prod`]) {
        const e = await commitEvent(production.ctx, { merchantId: m.merchant_id, url });
        ids.push(await notificationIdOf(production.ctx, e.eventId));
      }
      const errorsOf = async (id: number) =>
        (await production.ctx.db.query<{ error: string }>('SELECT error FROM notification_attempts WHERE notification_id = $1', [id])).rows.map((r) => r.error);
      await waitFor('attempts', async () => (await Promise.all(ids.map(errorsOf))).every((e) => e.length > 0));
      // What the merchant reads of it (GET /v3/notifications, the panel) names no resolved address in production.
      assert.equal((await errorsOf(ids[0]))[0], 'refused: private address');
      assert.equal((await errorsOf(ids[1]))[0], 'refused: private address');
      // Plain http can never succeed in production: failed at once rather than retried for days.
      assert.match((await errorsOf(ids[2]))[0], /only https/);
      assert.equal(await statusOf(production.ctx, ids[2]), 'failed');
      assert.equal(receiver.received.filter((r) => r.path === '/prod').length, 0);
      await worker.stop();
      await production.ctx.db.query(`UPDATE notifications SET status = 'failed' WHERE status = 'pending'`);
    });

    test('a slow merchant holds at most its per-origin share of the slots; others are still delivered', async () => {
      const staging = { ctx: withConfig('staging', { timeoutMs: 20_000, concurrency: 4, perOriginConcurrency: 2 }) };
      worker = new NotificationWorker(staging.ctx, { onError: () => {} });
      const m = await createMerchant(server.url, 'Slow and fast');
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      slow.respond = () => ({ status: 200, hold: held });
      receiver.respond = () => ({ status: 200 });
      const slowIds: number[] = [];
      for (let i = 0; i < 6; i++) {
        slowIds.push(await notificationIdOf(staging.ctx, (await commitEvent(staging.ctx, { merchantId: m.merchant_id, url: `${slow.url}/slow` })).eventId));
      }
      await waitFor('the slow endpoint holding requests', () => slow.received.length >= 2);
      const fastIds: number[] = [];
      for (let i = 0; i < 6; i++) {
        fastIds.push(await notificationIdOf(staging.ctx, (await commitEvent(staging.ctx, { merchantId: m.merchant_id, url: `${receiver.url}/fast` })).eventId));
      }
      // Every fast notification is delivered while the slow endpoint still holds its requests.
      await waitFor('fast ones delivered', async () => (await Promise.all(fastIds.map((id) => statusOf(staging.ctx, id)))).every((s) => s === 'delivered'));
      assert.equal(slow.received.length, 2, 'no more than the per-origin limit in flight to the slow endpoint');
      release();
      await waitFor('slow ones delivered', async () => (await Promise.all(slowIds.map((id) => statusOf(staging.ctx, id)))).every((s) => s === 'delivered'));
      assert.equal(slow.received.length, 6);
    });
  });
}
