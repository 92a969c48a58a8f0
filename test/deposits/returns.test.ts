// Bank-initiated returns (src/deposits/returns.ts): a return recorded once against its deposit
// takes the deposit's share of its credit back from the merchant's balance in one ledger
// transfer; what the available balance does not cover is a debt (the balance shows below zero),
// paid back by the next credits; cashouts are refused while it is owed; a reversal gives the money
// back; a return naming no deposit is kept unmatched. The ledger check holds after each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { cashoutRequest, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';
import { foldBalances } from '../../src/balances/fold-worker.ts';
import { checkLedger } from '../../src/ledger/check.ts';
import { dec, fromDb, sub, toDb } from '../../src/domain/money.ts';
import { type NewReturn, recordReturn, reverseReturn, ReturnError } from '../../src/deposits/returns.ts';

const PAYER = { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
const BR = (over: Record<string, unknown>) => ({
  country: 'BR', currency: 'USD', document_id: cpf('529982247'), beneficiary_name: 'Maria', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', ...over,
});

for (const backend of backends()) {
  describe(`deposit returns (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    before(async () => {
      s = await startTestServer(backend, { CAJA_CASHOUT_DELAY_SECONDS: '0' });
    });
    after(() => s.close());

    const balance = async (m: Credentials) => {
      const r = await V3Client.deposits(s.url, m).get('/v3/balance');
      assert.equal(r.status, 200, r.text);
      return r.body.balances.find((b: any) => b.currency === 'USD') ?? { available: 0, reserved: 0, fees: 0 };
    };
    /** A completed BR Pix deposit of USD 100.00 (1.5 % fee: 98.50 available). */
    const completed = async (m: Credentials) => {
      const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { country: 'BR', amount: '100.00', currency: 'USD', payment_method: 'IX', payer: PAYER });
      assert.equal(r.status, 200, r.text);
      const id = r.body.deposit_id as number;
      assert.equal((await V3Client.deposits(s.url, m).post(`/v3/sandbox/deposits/${id}/approve`, '')).status, 200);
      const { rows } = await s.ctx.db.query<{ payer_amount: string; local_currency: string }>('SELECT payer_amount, local_currency FROM deposits WHERE id = $1', [id]);
      return { id, payerAmount: rows[0]!.payer_amount, currency: rows[0]!.local_currency };
    };
    const med = (depositId: number | null, amount: string, currency: string, over: Partial<NewReturn> = {}): NewReturn => ({
      provider: 'test-psp', providerReturnId: `D${Date.now()}${++n}`, paymentId: `E${n}`, depositId, kind: 'med', reason: 'MED_FRAUDE',
      amount: dec(amount), currency, via: 'webhook', ...over,
    });
    const record = (r: NewReturn) => s.ctx.db.tx((q) => recordReturn(q, s.ctx, r));
    const half = (text: string) => toDb({ units: fromDb(text).units / 2n, scale: fromDb(text).scale });

    test('a MED the balance covers: the share of the credit leaves available, once; the deposit shows it', async () => {
      const m = await createMerchant(s.url, `Returns ${++n}`);
      const d1 = await completed(m);
      await completed(m);
      assert.equal((await balance(m)).available, 197);
      const r = med(d1.id, half(d1.payerAmount), d1.currency);
      const first = await record(r);
      assert.equal(first.status, 'recorded');
      // Its share of the gross credit (100.00), rounded down (the payer's amount may be odd cents).
      const firstDebit = Number(first.row.debit);
      assert.ok(firstDebit >= 49.99 && firstDebit <= 50, first.row.debit ?? 'null');
      const again = await record(r);
      assert.equal(again.status, 'duplicate');
      assert.equal(again.row.id, first.row.id);
      assert.equal((await balance(m)).available, 197 - firstDebit, 'half the gross credit taken back once');
      const { rows } = await s.ctx.db.query<{ returned_amount: string }>('SELECT returned_amount::text FROM deposits WHERE id = $1', [d1.id]);
      assert.equal(fromDb(rows[0]!.returned_amount).units > 0n, true);
      const events = await s.ctx.db.query<{ data: any }>(`SELECT data FROM events WHERE type = 'deposit.returned' AND subject_id = $1`, [d1.id]);
      assert.equal(events.rows.length, 1);
      assert.equal(events.rows[0]!.data.return_status, 'PARTIALLY_RETURNED');
      // The rest of the deposit: the last return takes exactly what is left of the credit.
      const rest = await record(med(d1.id, toDb(sub(fromDb(d1.payerAmount), fromDb(half(d1.payerAmount)))), d1.currency));
      assert.equal(Number(rest.row.debit) + firstDebit, 100, 'the two returns take the whole credit, not a cent more');
      assert.equal((await balance(m)).available, 97);
      const ev = await s.ctx.db.query<{ data: any }>(`SELECT data FROM events WHERE type = 'deposit.returned' AND subject_id = $1 ORDER BY id`, [d1.id]);
      assert.equal(ev.rows[1]!.data.return_status, 'RETURNED');
      await assertLedgerOk(s.ctx.db);
    });

    test('a MED beyond the balance leaves a debt; a credit pays it; a cashout waits until it is paid', async () => {
      const m = await createMerchant(s.url, `Debt ${++n}`);
      const d = await completed(m);
      const out = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: `ret-${n}-a`, amount: '90.00' }));
      assert.equal(out.status, 200, out.text);
      assert.equal((await balance(m)).available, 8.5);
      await record(med(d.id, d.payerAmount, d.currency));
      assert.equal((await balance(m)).available, -91.5, 'the whole credit (100.00) taken: 91.50 owed');
      await assertLedgerOk(s.ctx.db);
      const refused = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: `ret-${n}-b`, amount: '1.00' }));
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.code, 514);
      await completed(m);
      assert.equal((await balance(m)).available, 7, 'the credit (98.50) shows net of the debt at once');
      const stillRefused = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: `ret-${n}-c`, amount: '8.00' }));
      assert.equal(stillRefused.body.code, 514, stillRefused.text);
      const ok = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: `ret-${n}-d`, amount: '5.00' }));
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await balance(m)).available, 2);
      const { rows } = await s.ctx.db.query<{ kind: string; balance: string }>(
        `SELECT kind, balance::text FROM ledger_balances WHERE merchant_key = $1 AND kind IN ('available', 'debt') ORDER BY kind`, [m.merchant_id]);
      assert.deepEqual(rows.map((r) => [r.kind, Number(r.balance)]), [['available', 2], ['debt', 0]], 'the cashout paid the debt first');
      await assertLedgerOk(s.ctx.db);
      assert.deepEqual((await checkLedger(s.ctx.db, { full: true })).problems, []);
    });

    test('the fold worker pays a debt from later credits', async () => {
      const m = await createMerchant(s.url, `Fold debt ${++n}`);
      const d = await completed(m);
      const out = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: `retf-${n}`, amount: '50.00' }));
      assert.equal(out.status, 200, out.text);
      await record(med(d.id, d.payerAmount, d.currency));
      await completed(m);
      await foldBalances(s.ctx);
      const { rows } = await s.ctx.db.query<{ kind: string; balance: string }>(
        `SELECT kind, balance::text FROM ledger_balances WHERE merchant_key = $1 AND kind IN ('available', 'debt') ORDER BY kind`, [m.merchant_id]);
      assert.deepEqual(rows.map((r) => [r.kind, Number(r.balance)]), [['available', 47], ['debt', 0]]);
      await assertLedgerOk(s.ctx.db);
    });

    test('a reversal gives the money back, paying the debt first, once', async () => {
      const m = await createMerchant(s.url, `Reverse ${++n}`);
      const d = await completed(m);
      const out = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: `retr-${n}`, amount: '90.00' }));
      assert.equal(out.status, 200, out.text);
      const r = await record(med(d.id, d.payerAmount, d.currency, { kind: 'chargeback', reason: '10.4', feeUsd: dec('15.00') }));
      assert.equal((await balance(m)).available, -106.5);
      assert.equal(r.row.fee, '15.00');
      const back = await s.ctx.db.tx((q) => reverseReturn(q, r.row.id, 'dispute won'));
      assert.equal(back.status, 'reversed');
      // The chargeback's fee is not given back (the dispute was handled): 98.50 − 90 − 15.
      assert.equal((await balance(m)).available, -6.5);
      await assert.rejects(s.ctx.db.tx((q) => reverseReturn(q, r.row.id, 'again')), (e: unknown) => e instanceof ReturnError && e.kind === 'not_applied');
      const { rows } = await s.ctx.db.query<{ returned_amount: string }>('SELECT returned_amount::text FROM deposits WHERE id = $1', [d.id]);
      assert.equal(Number(rows[0]!.returned_amount), 0);
      await assertLedgerOk(s.ctx.db);
    });

    test('a return naming no deposit is kept unmatched and moves nothing; the console lists returns with their reasons', async () => {
      const r = await record(med(null, '10.00', 'BRL', { reason: 'MED_OPERACIONAL' }));
      const ops = await signedIn(s, await makeOperator(s, 'support', `support-returns-${backend}`));
      const unmatched = await ops.get('/ops/returns');
      assert.equal(unmatched.status, 200, unmatched.html.slice(0, 600));
      assert.match(unmatched.html, /MED_OPERACIONAL/);
      assert.match(unmatched.html, /unmatched/);
      const m = await createMerchant(s.url, `Console ${++n}`);
      const d = await completed(m);
      await record(med(d.id, d.payerAmount, d.currency, { reason: 'MED_FRAUDE' }));
      const page = await ops.get(`/ops/merchants/${m.merchant_id}`);
      assert.match(page.html, new RegExp(`href="/ops/merchants/${m.merchant_id}/returns"`));
      const mine = await ops.get(`/ops/merchants/${m.merchant_id}/returns`);
      assert.match(mine.html, /MED_FRAUDE/);
      assert.doesNotMatch(mine.html, /MED_OPERACIONAL/);
      assert.equal((await ops.get('/ops/merchants/999999/returns')).status, 404);
      assert.equal(r.status, 'unmatched');
      assert.equal(r.row.status, 'unmatched');
      assert.equal(r.row.debit, null);
      const t = await s.ctx.db.query(`SELECT 1 FROM ledger_transfers WHERE subject_type = 'deposit_return' AND subject_id = $1`, [r.row.id]);
      assert.equal(t.rows.length, 0);
      await assertLedgerOk(s.ctx.db);
    });
  });
}
