// Deposit lifecycle: GET, sandbox controls, expiry worker, operator late payment, crypto,
// notifications in the outbox, ledger credits, magic values and customer limits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, depositBatches, holdFirstDepositWrite, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { runDepositJobs, runSandboxJobs } from '../../src/deposits/worker.ts';
import { createDeposit, prepareDepositRequest } from '../../src/deposits/service.ts';
import { getMerchant } from '../../src/merchants/merchants.ts';
import { hmacHexUpper } from '../../src/domain/signatures.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';

const BR_PAYER = { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };

for (const backend of backends()) {
  describe(`deposit lifecycle (${backend})`, () => {
    let s: TestServer;
    let creds: Credentials;
    let v3: V3Client;

    before(async () => {
      s = await startTestServer(backend);
      creds = await createMerchant(s.url, 'Acme', { notification_url: 'https://merchant.example/hooks' });
      v3 = V3Client.deposits(s.url, creds);
    });
    after(async () => {
      // Every scenario above moved money: the ledger's invariants hold after all of them.
      await assertLedgerOk(s.ctx.db);
      await s.close();
    });

    const create = async (body: Record<string, unknown>) => {
      const r = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00', ...body });
      assert.equal(r.status, 200, r.text);
      return r.body.deposit_id as number;
    };
    const status = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body.status;
    /** Runs the deposit and sandbox workers as if `ms` had passed (signed requests use the real clock meanwhile). */
    const runLater = async (ms: number) => {
      const real = s.ctx.now;
      s.ctx.now = () => new Date(Date.now() + ms);
      try {
        await runDepositJobs(s.ctx);
        await runSandboxJobs(s.ctx);
      } finally {
        s.ctx.now = real;
      }
    };
    const outbox = async (id: number) =>
      (await s.ctx.db.query(`SELECT kind, url, body, content_type FROM notifications WHERE subject_key = $1 ORDER BY id`, [`deposit:${id}`])).rows;
    const events = async (id: number) =>
      (await s.ctx.db.query(`SELECT type, data FROM events WHERE subject_type = 'deposit' AND subject_id = $1 ORDER BY id`, [id])).rows;
    const credit = async (id: number) =>
      (await s.ctx.db.query(`SELECT id FROM ledger_transfers WHERE kind = 'deposit.credit' AND subject_type = 'deposit' AND subject_id = $1`, [id])).rows;

    test('GET shows the status fields; another merchant gets 208 / 404', async () => {
      const id = await create({ payment_method: 'IX', payer: { ...BR_PAYER, id: 'u-1' }, invoice_id: `get-${process.pid}` });
      const r = await v3.get(`/v3/deposits/${id}`);
      assert.equal(r.status, 200, r.text);
      for (const f of ['deposit_id', 'invoice_id', 'user_id', 'country', 'currency', 'usd_amount', 'local_amount', 'payment_method', 'payment_type', 'status', 'payer', 'fee_amount', 'fee_currency', 'refunded', 'times']) {
        assert.ok(f in r.body, `${f} missing`);
      }
      assert.equal(r.body.status, 'PENDING');
      assert.equal(r.body.currency, 'BRL');
      assert.equal(r.body.usd_amount, 10);
      assert.equal(r.body.local_amount, 54.32);
      assert.equal(r.body.payment_type, 'BANK_TRANSFER');
      assert.equal(r.body.refunded, false);
      assert.equal(r.body.payer.document, '52998224725');
      const other = V3Client.deposits(s.url, await createMerchant(s.url, 'Other'));
      const hidden = await other.get(`/v3/deposits/${id}`);
      assert.equal(hidden.status, 404);
      assert.equal(hidden.body.code, 208);
      assert.equal((await v3.get('/v3/deposits/99999999')).body.code, 208);
      assert.equal((await v3.get('/v3/deposits/abc')).body.code, 208);
    });

    test('sandbox approve completes, notifies the merchant URL and credits the balance once', async () => {
      const id = await create({ payment_method: 'IX', payer: BR_PAYER });
      const r = await v3.post(`/v3/sandbox/deposits/${id}/approve`, '');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.status, 'COMPLETED');
      const n = await outbox(id);
      assert.equal(n.length, 1);
      assert.equal(n[0].kind, 'v3.deposit');
      assert.equal(n[0].url, 'https://merchant.example/hooks');
      assert.equal(n[0].body, JSON.stringify({ deposit_id: id }));
      assert.equal((await credit(id)).length, 1);
      // COMPLETED never moves.
      for (const action of ['approve', 'cancel', 'expire']) {
        const again = await v3.post(`/v3/sandbox/deposits/${id}/${action}`, '');
        assert.equal(again.status, 409, action);
      }
      assert.equal((await admin(s.url, 'POST', `/admin/deposits/${id}/complete`, {})).status, 409);
      assert.equal(await status(id), 'COMPLETED');
    });

    test('the deposit notification_url wins over the merchant setting; none at all records only the event', async () => {
      const id = await create({ notification_url: 'https://own.example/n' });
      await v3.post(`/v3/sandbox/deposits/${id}/cancel`, '');
      assert.equal((await outbox(id))[0].url, 'https://own.example/n');
      const bare = await createMerchant(s.url, 'NoHooks');
      const c = V3Client.deposits(s.url, bare);
      const d = await c.post('/v3/deposits', { country: 'BR', amount: 1 });
      assert.equal((await c.post(`/v3/sandbox/deposits/${d.body.deposit_id}/cancel`, '')).status, 200);
      assert.equal((await outbox(d.body.deposit_id)).length, 0);
      assert.deepEqual((await events(d.body.deposit_id)).map((e) => e.type), ['deposit.created', 'deposit.status_changed']);
    });

    test('test deposits never touch the balance', async () => {
      const id = await create({ test: true, payment_method: 'IX', payer: BR_PAYER });
      await v3.post(`/v3/sandbox/deposits/${id}/approve`, '');
      assert.equal(await status(id), 'COMPLETED');
      assert.equal((await credit(id)).length, 0);
    });

    test('expiry: the worker cancels unpaid deposits at expiration_date; late payment by the operator', async () => {
      const id = await create({ payment_method: 'IX', payer: BR_PAYER });
      await runLater(30 * 60_000);
      assert.equal(await status(id), 'PENDING', 'Pix expires after an hour');
      await runLater(61 * 60_000);
      assert.equal(await status(id), 'CANCELLED');
      const ev = await events(id);
      assert.equal(ev.at(-1)!.data.cause, 'expiry');
      assert.equal((await outbox(id)).length, 1);
      // The customer paid after all: only the operator moves a final deposit.
      assert.equal((await v3.post(`/v3/sandbox/deposits/${id}/approve`, '')).status, 409);
      const late = await admin(s.url, 'POST', `/admin/deposits/${id}/complete`, { note: 'paid 2h late' });
      assert.equal(late.status, 200, late.text);
      assert.equal(late.body.status, 'COMPLETED');
      assert.equal((await outbox(id)).length, 2);
      assert.equal((await credit(id)).length, 1);
      const view = await admin(s.url, 'GET', `/admin/deposits/${id}`);
      assert.deepEqual(view.body.history.map((h: any) => [h.from_status, h.to_status, h.cause]), [
        [null, 'PENDING', 'created'], ['PENDING', 'CANCELLED', 'expiry'], ['CANCELLED', 'COMPLETED', 'late_payment'],
      ]);
    });

    test('sandbox expire and cancel; unknown or foreign ids are 208', async () => {
      const a = await create({});
      assert.equal((await v3.post(`/v3/sandbox/deposits/${a}/expire`, '')).body.status, 'CANCELLED');
      assert.equal((await events(a)).at(-1)!.data.cause, 'expiry');
      const other = V3Client.deposits(s.url, await createMerchant(s.url, 'Intruder'));
      const b = await create({});
      assert.equal((await other.post(`/v3/sandbox/deposits/${b}/cancel`, '')).body.code, 208);
      assert.equal(await status(b), 'PENDING');
    });

    test('crypto: PENDING to APPROVED to COMPLETED', async () => {
      const id = await create({ amount: '100.00', payment_method: 'CR', payer: BR_PAYER });
      assert.equal((await v3.post(`/v3/sandbox/deposits/${id}/approve`, '')).body.status, 'APPROVED');
      assert.equal((await v3.post(`/v3/sandbox/deposits/${id}/approve`, '')).body.status, 'COMPLETED');
    });

    test('magic values: the simulator completes or cancels by itself', async () => {
      // (A HOSTED deposit completes only once its customer has chosen a method: see test/web/checkout.test.ts.)
      const ok = await create({ payment_method: 'IX', payer: { ...BR_PAYER, email: 'approve@example.com' } });
      const ko = await create({ amount: '10.66' });
      const cents = await create({ amount: '10.77', payment_method: 'IX', payer: BR_PAYER });
      const plain = await create({});
      await runLater(s.ctx.config.sandboxAutoSeconds * 1000 + 1000);
      assert.equal(await status(ok), 'COMPLETED');
      assert.equal(await status(ko), 'CANCELLED');
      assert.equal(await status(cents), 'COMPLETED');
      assert.equal(await status(plain), 'PENDING');
    });

    test('customer limits: per transaction, daily, monthly, by user_id or document', async () => {
      const m = await createMerchant(s.url, 'Limited');
      const c = V3Client.deposits(s.url, m);
      const put = await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'MX', per_transaction: '100', daily: 150, monthly: '220' });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.currency, 'USD');
      const dep = (amount: string, payer: Record<string, unknown>) => c.post('/v3/deposits', { country: 'MX', amount, payer });
      const tx = await dep('100.01', { id: 'u1' });
      assert.equal(tx.status, 400);
      assert.equal(tx.body.code, 304);
      assert.match(tx.body.description, /: TRANSACTION$/);
      assert.equal((await dep('100', { id: 'u1' })).status, 200);
      const daily = await dep('60', { id: 'u1' });
      assert.equal(daily.body.code, 304);
      assert.match(daily.body.description, /: DAILY$/);
      // The same customer by document, under another user id.
      assert.equal((await dep('40', { id: 'u2', document: 'GODE561231GR8' })).status, 200);
      const byDoc = await dep('20', { id: 'u3', document: 'GODE561231GR8' });
      assert.equal(byDoc.status, 200);
      // Another customer is not affected; other countries neither.
      assert.equal((await dep('100', { id: 'u9' })).status, 200);
      assert.equal((await c.post('/v3/deposits', { country: 'BR', amount: 500, payer: { id: 'u1' } })).status, 200);
      // Cancelled deposits do not count; the monthly ceiling counts earlier days.
      const monthStart = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
      await s.ctx.db.query(`UPDATE deposits SET created_at = $2 WHERE merchant_id = $1 AND user_id = 'u1'`, [m.merchant_id, monthStart]);
      if (new Date().getUTCDate() > 1) {
        assert.equal((await dep('100', { id: 'u1' })).status, 200);
        const monthly = await dep('30', { id: 'u1' });
        assert.match(monthly.body.description, /: MONTHLY$/);
      }
      const list = await admin(s.url, 'GET', '/admin/limits');
      assert.ok(list.body.some((l: any) => l.merchant_id === m.merchant_id && l.country === 'MX'));
      const bad = await admin(s.url, 'PUT', '/admin/limits', { country: 'US', daily: '-1' });
      assert.equal(bad.body.code, 201);
      assert.deepEqual(bad.body.details, ['country: must be an accepted country code or *', 'daily: must be greater than 0']);
    });

    test('a cap on one deposit alone is checked without the customer lock: its creations share statements', async () => {
      const m = await createMerchant(s.url, 'Capped');
      const c = V3Client.deposits(s.url, m);
      await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'CO', per_transaction: '20' });
      const batches = () => depositBatches(s);
      const before = await batches();
      const amounts = Array.from({ length: 30 }, (_, i) => (i % 10 === 9 ? '20.01' : '20'));
      // Amounts in USD: COP at the staging rate would make a cap in USD hard to read, so USD.
      const results = await Promise.all(amounts.map((amount, i) => c.post('/v3/deposits', { country: 'CO', currency: 'USD', amount, payer: { id: 'same' }, description: `cap ${i}` })));
      results.forEach((r, i) => {
        if (amounts[i] === '20') assert.equal(r.status, 200, r.text);
        else assert.deepEqual([r.status, r.body.code, /: TRANSACTION$/.test(r.body.description)], [400, 304, true], r.text);
      });
      assert.ok((await batches()) - before > 0, 'written by the shared statement');
      const { rows } = await s.ctx.db.query(`SELECT count(*)::int AS n FROM deposits WHERE merchant_id = $1`, [m.merchant_id]);
      assert.equal(rows[0].n, 27);
    });

    test('racing deposits cannot both pass a daily limit', async () => {
      const m = await createMerchant(s.url, 'Racer');
      const c = V3Client.deposits(s.url, m);
      await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'PE', daily: '50' });
      // Twelve requests, each its own deposit but for the customer limit.
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => c.post('/v3/deposits', { country: 'PE', amount: '10', payer: { id: 'same' }, description: `race ${i}` })));
      assert.equal(results.filter((r) => r.status === 200).length, 5, results.map((r) => r.status).join());
      assert.ok(results.filter((r) => r.status !== 200).every((r) => r.body.code === 304));
    });

    test('racing deposits of many customers under a daily limit: each gets exactly what it allows, in shared transactions', async () => {
      const m = await createMerchant(s.url, 'Crowd');
      const c = V3Client.deposits(s.url, m);
      await admin(s.url, 'PUT', '/admin/limits', { merchant_id: m.merchant_id, country: '*', daily: '50' });
      const batches = () => depositBatches(s);
      const before = await batches();
      // Eight customers by user id, and a ninth known by one document under two user ids: seven
      // deposits of 10 USD each, of which the daily ceiling of 50 lets five through.
      const payers = [
        ...Array.from({ length: 8 }, (_, k) => Array.from({ length: 7 }, () => ({ id: `crowd-${k}` }))),
        Array.from({ length: 7 }, (_, i) => ({ id: `crowd-doc-${i % 2}`, document: 'GODE561231GR8' })),
      ];
      const requests = payers.flatMap((list, k) => list.map((payer, i) => ({ k, body: { country: 'MX', currency: 'USD', amount: '10', payer, description: `crowd ${k} ${i}` } })));
      // The first batch's transaction is held until every other creation waits behind it: they
      // then share the next transaction, however fast the machine (not timed).
      const hold = holdFirstDepositWrite(s, 'checked');
      const settled = Promise.all(requests.map(async ({ k, body }) => ({ k, r: await c.post('/v3/deposits', body) })));
      try {
        await hold.queued(requests.length - 1);
      } finally {
        hold.release();
      }
      const results = await settled;
      for (let k = 0; k < payers.length; k++) {
        const mine = results.filter((x) => x.k === k);
        assert.equal(mine.filter((x) => x.r.status === 200).length, 5, `customer ${k}: ${mine.map((x) => x.r.status).join()}`);
        assert.ok(mine.filter((x) => x.r.status !== 200).every((x) => x.r.body.code === 304 && /: DAILY$/.test(x.r.body.description)));
      }
      const { rows } = await s.ctx.db.query<{ total: string }>(
        `SELECT sum(usd_amount)::text AS total FROM deposits WHERE merchant_id = $1 GROUP BY COALESCE(payer_document, user_id) ORDER BY 1`, [m.merchant_id]);
      assert.deepEqual(rows.map((r) => Number(r.total)), new Array(9).fill(50));
      // The held transaction wrote one deposit; the 62 queued behind it shared the next one.
      assert.equal((await batches()) - before, 1 + Math.ceil((requests.length - 1) / 64), 'customers shared transactions');
    });

    test('streamline-created deposits notify with a signed confirmation form', async () => {
      const merchant = (await getMerchant(s.ctx.db, creds.merchant_id))!;
      const v = await prepareDepositRequest(s.ctx, { country: 'BR', amount: '25.00', invoice_id: `sl-${process.pid}`, payment_method: 'IX', payer: { ...BR_PAYER, id: '77' } });
      assert.ok(v.ok);
      const { deposit } = await createDeposit(s.ctx, merchant, v.value, { source: 'streamline', confirmationUrl: 'https://merchant.example/confirm' });
      await v3.post(`/v3/sandbox/deposits/${deposit.id}/approve`, '');
      const [n] = await outbox(deposit.id);
      assert.equal(n.kind, 'streamline.confirmation');
      assert.equal(n.url, 'https://merchant.example/confirm');
      assert.equal(n.content_type, 'application/x-www-form-urlencoded');
      const f = Object.fromEntries(new URLSearchParams(n.body));
      assert.equal(f.result, '9');
      assert.equal(f.x_invoice, `sl-${process.pid}`);
      assert.equal(f.x_amount, '25.00');
      assert.equal(f.x_document, String(deposit.id));
      assert.equal(f.x_iduser, '77');
      assert.equal(f.x_bank, 'IX');
      assert.equal(f.x_control, hmacHexUpper(creds.deposits.secret_key, `${creds.deposits.login}9${f.x_amount}${f.x_invoice}`));
    });
  });
}

describe('production has no sandbox', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('pglite', { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com' });
  });
  after(() => s.close());

  test('sandbox paths answer 404', async () => {
    const c = V3Client.deposits(s.url, await createMerchant(s.url, 'Prod'));
    // Production offers what a connector collects: here the operator's own account in Ecuador.
    const own = await admin(s.url, 'PUT', '/admin/connectors/own_accounts', { accounts: [{ country: 'EC', method: 'PI', beneficiary_name: 'Operadora SA', account: '2203344556' }] });
    assert.equal(own.status, 200, own.text);
    // Ecuador collects in USD, so no exchange rate has to be set up in production first.
    const d = await c.post('/v3/deposits', { country: 'EC', amount: 10 });
    assert.equal(d.status, 200, d.text);
    assert.match(d.body.redirect_url, /^https:\/\/pay\.example\.com\/checkout\//);
    const r = await c.post(`/v3/sandbox/deposits/${d.body.deposit_id}/approve`, '');
    assert.equal(r.status, 404);
    // Magic values do nothing in production.
    const magic = await c.post('/v3/deposits', { country: 'EC', amount: '10.77' });
    const { rows } = await s.ctx.db.query('SELECT sandbox_outcome FROM deposits WHERE id = $1', [magic.body.deposit_id]);
    assert.equal(rows[0].sandbox_outcome, null);
  });
});
