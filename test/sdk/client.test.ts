// The SDK (sdk/src) against a real caja on a loopback port, as a merchant's code would use it:
// signing of every face, typed errors, idempotency keys reused across a retry, retries through a
// real flaky proxy, cashouts, notification verification and the streamline controls.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Caja, CajaAuthenticationError, CajaConnectionError, CajaInvalidRequestError, CajaNotFoundError, CajaSignatureVerificationError,
  depositResultControl, newInvoiceControl, signNotification, verifyNotification,
} from '../../sdk/src/index.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, formPost, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { startReceiver, type Receiver, waitFor } from '../notifications/helpers.ts';

const PAYER = { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };

/**
 * A real HTTP proxy in front of caja whose next answers can be spoiled: '503' answers 503
 * without forwarding; 'drop' forwards the request (caja acts on it) and then cuts the
 * connection before the answer, as a network failure after the fact would.
 */
async function flakyProxy(target: string) {
  const faults: ('503' | 'drop')[] = [];
  const seen: { method: string; path: string; idempotencyKey?: string; xDate?: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      seen.push({ method: req.method!, path: req.url!, idempotencyKey: req.headers['x-idempotency-key'] as string, xDate: req.headers['x-date'] as string });
      const fault = faults.shift();
      if (fault === '503') {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"code":503,"description":"unavailable"}');
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
      const r = await fetch(target + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const text = await r.text();
      if (fault === 'drop') {
        req.socket.destroy();
        return;
      }
      res.writeHead(r.status, Object.fromEntries(r.headers)).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    faults,
    seen,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

for (const backend of backends()) {
  describe(`SDK against caja (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let caja: Caja;
    let receiver: Receiver;
    const client = (baseUrl: string, over: Partial<ConstructorParameters<typeof Caja>[0]> = {}) =>
      new Caja({
        baseUrl,
        deposits: { login: m.deposits.login, secretKey: m.deposits.secret_key },
        cashouts: { login: m.cashouts.login, pass: m.cashouts.pass, secretKey: m.cashouts.secret_key },
        readOnlyKey: m.read_only_key,
        retryBaseMs: 10,
        ...over,
      });
    before(async () => {
      s = await startTestServer(backend, { CAJA_NOTIFY_POLL_MS: '50' }, { workers: true });
      receiver = await startReceiver();
      m = await createMerchant(s.url, 'SDK Shop', { notification_url: `${receiver.url}/hook` });
      caja = client(s.url);
    });
    after(async () => {
      await s.close();
      await receiver.close();
    });

    test('signs v3 and v5 calls with SVC2 by default, which a merchant requiring SVC2 accepts; SVC on request', async () => {
      const seen: string[] = [];
      const spy: typeof fetch = (input, init) => {
        seen.push(String(new Headers(init?.headers).get('authorization')).split(' ')[0]!);
        return fetch(input, init);
      };
      const required = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { require_svc2: true });
      assert.equal(required.status, 200, required.text);
      try {
        const svc2 = client(s.url, { fetch: spy });
        assert.equal((await svc2.me()).merchant_id, m.merchant_id);
        // A query string is part of what SVC2 signs.
        assert.ok(Array.isArray((await svc2.balance.transactions({ limit: '1' } as never)).data));
        await assert.rejects(client(s.url, { signature: 'SVC', fetch: spy }).me(), (err: any) => err.code === 102);
      } finally {
        await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { require_svc2: false });
      }
      assert.deepEqual([...new Set(seen)], ['SVC2', 'SVC']);
      assert.equal((await client(s.url, { signature: 'SVC' }).me()).merchant_id, m.merchant_id, 'SVC works once SVC2 is not required');
    });

    test('me() signs with the deposits key; a wrong secret is a CajaAuthenticationError 102', async () => {
      assert.equal((await caja.me()).merchant_id, m.merchant_id);
      const wrong = client(s.url, { deposits: { login: m.deposits.login, secretKey: 'not-the-secret' } });
      const err = await wrong.me().then(() => null, (e) => e);
      assert.ok(err instanceof CajaAuthenticationError, String(err));
      assert.deepEqual([err.httpStatus, err.code, err.type], [400, 102, 'INVALID_SIGNATURE']);
    });

    test('deposit lifecycle: create, sandbox approve, get; validation and not-found errors are typed', async () => {
      const d = await caja.deposits.create({ country: 'BR', amount: '100.00', currency: 'BRL', payment_method: 'IX', payer: PAYER });
      assert.equal(d.checkout_type, 'ONE_SHOT');
      assert.ok(caja.lastResponse?.idempotencyKey, 'a key is generated when none is given');
      await caja.sandbox.deposits.approve(d.deposit_id!);
      assert.equal((await caja.deposits.get(d.deposit_id!)).status, 'COMPLETED');
      const invalid = await caja.deposits.create({ country: 'BR', amount: '10', payer: { document: '123' } }).then(() => null, (e) => e);
      assert.ok(invalid instanceof CajaInvalidRequestError);
      assert.equal(invalid.code, 201);
      assert.ok(invalid.details.some((l: string) => l.startsWith('payer.document')), invalid.details.join('; '));
      const missing = await caja.deposits.get(2000000000).then(() => null, (e) => e);
      assert.ok(missing instanceof CajaNotFoundError);
      assert.deepEqual([missing.code, missing.type], [208, 'RESOURCE_NOT_FOUND']);
    });

    test('a lost answer is retried with the same idempotency key and a fresh X-Date: one deposit, replayed', async () => {
      const proxy = await flakyProxy(s.url);
      try {
        const c = client(proxy.url);
        proxy.faults.push('drop');
        const d = await c.deposits.create({ country: 'BR', amount: '15.00', currency: 'BRL', payment_method: 'IX', payer: PAYER }, { idempotencyKey: `sdk-${backend}-${Date.now()}` });
        assert.equal(proxy.seen.length, 2);
        assert.equal(proxy.seen[0].idempotencyKey, proxy.seen[1].idempotencyKey);
        assert.equal(c.lastResponse?.idempotentReplayed, true, 'the second attempt is caja replaying the first');
        assert.equal((await caja.deposits.get(d.deposit_id!)).status, 'PENDING');
      } finally {
        await proxy.close();
      }
    });

    test('5xx is retried with backoff; when retries run out the error is thrown', async () => {
      const proxy = await flakyProxy(s.url);
      try {
        const c = client(proxy.url, { maxRetries: 2 });
        proxy.faults.push('503', '503');
        assert.equal((await c.me()).merchant_id, m.merchant_id);
        assert.equal(proxy.seen.length, 3);
        proxy.faults.push('503', '503', '503');
        const err = await c.me().then(() => null, (e) => e);
        assert.equal(err?.httpStatus, 503);
        const down = new Caja({ baseUrl: 'http://127.0.0.1:1', deposits: { login: 'x', secretKey: 'y' }, maxRetries: 1, retryBaseMs: 1 });
        assert.ok((await down.me().then(() => null, (e) => e)) instanceof CajaConnectionError);
      } finally {
        await proxy.close();
      }
    });

    test('refund, balance, events and lookups', async () => {
      const d = await caja.deposits.create({ country: 'BR', amount: '50.00', currency: 'BRL', payment_method: 'IX', payer: PAYER });
      await caja.sandbox.deposits.approve(d.deposit_id!);
      const r = await caja.refunds.create({ deposit_id: d.deposit_id!, amount: '10.00', bank_account: { beneficiary: 'Maria Souza', bank_code: '260', branch: '0001', account_number: '12345-6', account_type: 'CHECKING' } });
      assert.ok(r.refund_id);
      assert.equal((await caja.refunds.get(r.refund_id!)).deposit_id, d.deposit_id);
      assert.ok((await caja.balance.get()).balances!.length >= 1);
      // The feed shows an event once every transaction that began before it has ended (so that a
      // cursor never skips one); with other tests' transactions running on the same PostgreSQL,
      // the approval may show a moment later, as it may to any client: read until it is there.
      await waitFor('the approval in the event feed', async () =>
        (await caja.events.list({ limit: 500 })).events!.some((e) => e.type === 'deposit.status_changed' && e.subject_id === d.deposit_id));
      const banks = await caja.lookups.banks({ country: 'BR' });
      assert.ok(banks.some((b) => b.code === 260));
    });

    test('cashouts: create (a retried lost answer resolves to the first cashout), status, hold, release, cancel', async () => {
      const fund = await admin(s.url, 'POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'credit', amount: '500.00', currency: 'USD', reason: 'sdk test' });
      assert.equal(fund.status, 201, fund.text);
      const body = {
        external_id: `sdk-co-${backend}-${Date.now()}`, country: 'BR', currency: 'USD', amount: '20.00', document_id: cpf('529982247'),
        beneficiary_name: 'Maria', beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
      };
      const proxy = await flakyProxy(s.url);
      try {
        proxy.faults.push('drop');
        const { cashout_id } = await client(proxy.url).cashouts.create(body);
        assert.ok(Number.isInteger(cashout_id));
        assert.equal((await caja.cashouts.status({ external_id: body.external_id })).cashout_id, cashout_id);
      } finally {
        await proxy.close();
      }
      const pending = await caja.cashouts.status({ external_id: body.external_id });
      assert.equal(pending.cashout_status, 0);
      const id = pending.cashout_id!;
      await caja.cashouts.hold(id);
      assert.equal((await caja.cashouts.status({ cashout_id: id })).cashout_status, 5);
      await caja.cashouts.release(id);
      const cancelled = await caja.cashouts.cancel(id, body.external_id);
      assert.equal(cancelled.cashout_status, 2);
      const again = await caja.cashouts.cancel(id, body.external_id).then(() => null, (e) => e);
      assert.deepEqual([again?.code, again?.type], [510, undefined]);
    });

    test('verifyNotification accepts what caja delivers and refuses a wrong secret, a changed body, an old timestamp', async () => {
      const d = await caja.deposits.create({ country: 'BR', amount: '12.00', currency: 'BRL', payment_method: 'IX', payer: PAYER });
      await caja.sandbox.deposits.approve(d.deposit_id!);
      const got = await waitFor('the notification', () => receiver.received.find((r) => r.body === JSON.stringify({ deposit_id: d.deposit_id })));
      const header = got.headers['caja-signature'] as string;
      assert.ok(verifyNotification(got.body, header, m.deposits.secret_key, 300) > 0);
      const reason = (f: () => unknown) => { try { f(); return 'accepted'; } catch (e) { assert.ok(e instanceof CajaSignatureVerificationError); return e.reason; } };
      assert.equal(reason(() => verifyNotification(got.body, header, m.cashouts.secret_key)), 'no_matching_signature');
      assert.equal(reason(() => verifyNotification(got.body + ' ', header, m.deposits.secret_key)), 'no_matching_signature');
      assert.equal(reason(() => verifyNotification(got.body, header, m.deposits.secret_key, 300, Date.now() + 3600_000)), 'timestamp_outside_tolerance');
      assert.equal(reason(() => verifyNotification(got.body, 'v1=abc', m.deposits.secret_key)), 'malformed_header');
      assert.equal(reason(() => verifyNotification('{}', signNotification('{}', 'k'), 'k')), 'accepted');
    });

    test('streamline controls: NewInvoice signed by the SDK is accepted; webpaystatus Sign matches', async () => {
      const f: Record<string, string> = {
        x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: `sdk-sl-${backend}-${Date.now()}`, x_amount: '100.00',
        x_currency: 'BRL', x_country: 'BR', x_bank: 'IX', x_iduser: '4411', x_cpf: cpf('529982247'), x_name: 'João da Silva',
        x_email: 'joao@example.com', x_address: 'Rua Augusta 1500', x_zip: '01304-001', x_city: 'São Paulo', x_state: 'SP',
        x_return: 'https://shop.example/return', type: 'json',
      };
      f.control = newInvoiceControl(m.deposits.secret_key, f as never);
      const r = await formPost(s.url, '/api_curl/streamline/NewInvoice', f);
      assert.equal(r.body.status, '0', r.text);
      const st = await formPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: f.x_invoice, type: 'json' });
      assert.equal(st.body.Sign, depositResultControl(m.deposits.secret_key, m.deposits.login, st.body.result, st.body.x_amount, st.body.x_invoice));
    });
  });
}
