// v3 refunds: bank and card deposits, the amount rule, isolation between merchants, the
// refund notification, and racing requests on PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, V3Client, type Credentials, xDateNow } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';

const account = { beneficiary: 'Maria Souza', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' };

for (const backend of backends()) {
  describe(`v3 refunds (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Refunds');
      v3 = V3Client.deposits(s.url, m);
    });
    after(async () => {
      // Every scenario above moved money: the ledger's invariants hold after all of them.
      await assertLedgerOk(s.ctx.db);
      await s.close();
    });

    async function completed(method = 'IX', amount = '100.00') {
      const r = await v3.post('/v3/deposits', {
        country: 'BR',
        amount,
        currency: 'BRL',
        invoice_id: `rf-${backend}-${++n}-${Date.now()}`,
        payment_method: method,
        payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(r.status, 200, r.text);
      const ok = await v3.post(`/v3/sandbox/deposits/${r.body.deposit_id}/approve`, '');
      assert.equal(ok.status, 200, ok.text);
      return r.body as { deposit_id: number; merchant_invoice_id: string };
    }

    test('a bank deposit refund needs the account (804), then answers a refund_id and stays PENDING', async () => {
      const d = await completed();
      const missing = await v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '10.00' });
      assert.deepEqual([missing.status, missing.body.code, missing.body.type], [400, 804, 'MISSING_BANK_ACCOUNT']);
      const r = await v3.post('/v3/refunds', { invoice_id: d.merchant_invoice_id, amount: 10, bank_account: account, notification_url: 'https://shop.example/refunds' });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body), ['refund_id']);
      const seen = await v3.get(`/v3/refunds/${r.body.refund_id}`);
      assert.deepEqual([seen.body.status, seen.body.amount, seen.body.currency, seen.body.deposit_id], ['PENDING', 10, 'BRL', d.deposit_id]);
      // Completion notifies the refund's notification_url with {"refund_id"} through the outbox.
      await v3.post(`/v3/sandbox/refunds/${r.body.refund_id}/complete`, '');
      const { rows } = await s.ctx.db.query<{ url: string; body: string }>(`SELECT url, body FROM notifications WHERE subject_key = $1`, [`refund:${r.body.refund_id}`]);
      assert.deepEqual(rows, [{ url: 'https://shop.example/refunds', body: JSON.stringify({ refund_id: r.body.refund_id }) }]);
      // The feed shows an event once every older transaction of the PostgreSQL server has ended,
      // other test files' included: it may take a moment.
      let changed: any;
      for (let i = 0; i < 300 && !changed; i++) {
        if (i) await new Promise((resolve) => setTimeout(resolve, 100));
        const events = await v3.get('/v3/events?limit=500');
        changed = events.body.events.find((e: any) => e.type === 'refund.status_changed' && e.subject_id === r.body.refund_id);
      }
      assert.ok(changed, 'the refund\'s event in the feed');
      assert.deepEqual([changed.data.status, changed.data.previous_status, changed.data.cause], ['COMPLETED', 'PENDING', 'sandbox complete']);
      const again = await v3.post(`/v3/sandbox/refunds/${r.body.refund_id}/reject`, '');
      assert.equal(again.status, 409, 'a completed refund is final');
      const dep = await v3.get(`/v3/deposits/${d.deposit_id}`);
      assert.equal(dep.status, 200);
    });

    test('a sandbox transition the refund\'s state forbids: 409 with 510, as for deposits and cashouts', async () => {
      const d = await completed();
      const r = await v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '5.00', bank_account: account });
      assert.equal((await v3.post(`/v3/sandbox/refunds/${r.body.refund_id}/complete`, '')).status, 200);
      for (const action of ['complete', 'reject']) {
        const again = await v3.post(`/v3/sandbox/refunds/${r.body.refund_id}/${action}`, '');
        assert.deepEqual([again.status, again.body.code, again.body.type], [409, 510, 'INVALID_STATUS_TRANSITION'], `${action}: ${again.text}`);
        assert.match(again.body.description, /COMPLETED/);
      }
      // The same answer a deposit gives for a transition its state forbids.
      const deposit = await v3.post(`/v3/sandbox/deposits/${d.deposit_id}/approve`, '');
      assert.deepEqual([deposit.status, deposit.body.code, deposit.body.type], [409, 510, 'INVALID_STATUS_TRANSITION']);
      assert.equal((await v3.get(`/v3/refunds/${r.body.refund_id}`)).body.status, 'COMPLETED');
    });

    test('a card deposit refund goes to the card: SUCCESS at once, or REJECTED with a reason code', async () => {
      const d = await completed('VI', '50.00');
      const r = await v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '20.00' });
      assert.equal(r.status, 200, r.text);
      assert.equal(typeof r.body.refund_id, 'string');
      assert.equal(r.body.deposit_id, d.deposit_id);
      assert.equal(r.body.merchant_invoice_id, d.merchant_invoice_id);
      assert.deepEqual(
        { ...r.body.refund_info, created_at: undefined },
        { type: 'CREDIT_CARD', result: 'SUCCESS', payment_method: 'VI', payment_method_name: 'Visa', amount: 20, currency: 'BRL', created_at: undefined },
      );
      assert.match(r.body.refund_info.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const rejected = await v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '10.03' });
      assert.deepEqual([rejected.body.refund_info.result, rejected.body.refund_info.reason_code], ['REJECTED', 'INSUFFICIENT_FUNDS']);
      assert.ok(rejected.body.refund_info.reason);
      // The rejected refund gave its amount back: 30.00 remain.
      assert.equal((await v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '30.01' })).body.code, 802);
      // No amount: what remains (30.00), then nothing is left.
      const rest = await v3.post('/v3/refunds', { deposit_id: d.deposit_id });
      assert.deepEqual([rest.body.refund_info.result, rest.body.refund_info.amount], ['SUCCESS', 30]);
      // Another request (its own X-Date): the same signed bytes again would be a replay of `rest`.
      assert.equal((await v3.post('/v3/refunds', { deposit_id: d.deposit_id }, { 'X-Date': xDateNow(-30) })).body.code, 802, 'nothing left to refund');
    });

    test('validation: every failing field at once; pending deposits cannot be refunded', async () => {
      const bad = await v3.post('/v3/refunds', { amount: '1.234', notification_url: 'http://shop.example/x', bank_account: { account_type: 'NOPE' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 201);
      const fields = bad.body.details.map((x: string) => x.split(':')[0]);
      assert.deepEqual(fields.sort(), ['amount', 'bank_account.account_number', 'bank_account.account_type', 'bank_account.bank_code', 'bank_account.beneficiary', 'deposit_id', 'notification_url']);
      const pending = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'IX' });
      const r = await v3.post('/v3/refunds', { deposit_id: pending.body.deposit_id, bank_account: account });
      assert.deepEqual([r.status, r.body.code], [400, 201]);
      assert.match(r.body.details[0], /PENDING/);
      assert.equal((await v3.post('/v3/refunds', 'not json')).body.code, 502);
    });

    test('another merchant can neither refund nor read the deposit or its refunds', async () => {
      const d = await completed();
      const mine = await v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '1.00', bank_account: account });
      const other = V3Client.deposits(s.url, await createMerchant(s.url, 'Intruder'));
      const r = await other.post('/v3/refunds', { deposit_id: d.deposit_id, bank_account: account });
      assert.deepEqual([r.status, r.body.code], [404, 208]);
      assert.deepEqual([(await other.get(`/v3/refunds/${mine.body.refund_id}`)).status], [404]);
      assert.equal((await other.post(`/v3/sandbox/refunds/${mine.body.refund_id}/complete`, '')).status, 404);
      assert.equal((await v3.get(`/v3/refunds/${mine.body.refund_id}`)).body.status, 'PENDING');
    });

    if (backend === 'pg') {
      test('racing refunds of both faces never exceed the deposit', async () => {
        const d = await completed('IX', '90.00');
        // Fifteen different requests: identical signed copies would be one request replayed.
        const results = await Promise.all(Array.from({ length: 15 }, (_, i) => v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '20.00', bank_account: account, comments: `race ${i}` })));
        const ok = results.filter((r) => r.status === 200);
        assert.equal(ok.length, 4);
        assert.ok(results.filter((r) => r.status !== 200).every((r) => r.body.code === 802));
        const { rows } = await s.ctx.db.query<{ total: string }>('SELECT sum(amount) AS total FROM refunds WHERE deposit_id = $1', [d.deposit_id]);
        assert.equal(rows[0].total, '80.00');
      });
    }
  });
}
