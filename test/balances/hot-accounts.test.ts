// Hot accounts (issue 30, migration 034): a credit appends a balance delta and locks no account
// row; only a debit of an available balance locks its row, folding the committed deltas first.
// Through the API: balances and caja's own accounts stay exact under concurrent completions of
// many merchants, cashouts racing completions never overspend, the worker's fold changes no
// balance, and the ledger check catches a delta that does not belong. A batch of completions appends
// one delta per account and one figure delta per group (migration 097).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { cashoutRequest, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { creditBalance } from '../helpers/merchants.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { runDepositJobs } from '../../src/deposits/worker.ts';
import { transitionAllIn } from '../../src/deposits/transitions.ts';
import { foldBalances } from '../../src/balances/fold-worker.ts';
import { checkLedger } from '../../src/ledger/check.ts';
import { cajaAccount, merchantAccount, reserve, transfer } from '../../src/ledger/ledger.ts';
import { fromDb } from '../../src/domain/money.ts';

const PAYER = { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
const BR = (over: Record<string, unknown>) => ({
  country: 'BR', currency: 'USD', document_id: cpf('529982247'), beneficiary_name: 'Maria', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', ...over,
});

for (const backend of backends()) {
  describe(`hot accounts (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    before(async () => {
      s = await startTestServer(backend, { CAJA_CASHOUT_DELAY_SECONDS: '0' });
    });
    after(() => s.close());

    const available = async (m: Credentials) => {
      const r = await V3Client.deposits(s.url, m).get('/v3/balance');
      assert.equal(r.status, 200, r.text);
      return r.body.balances.find((b: any) => b.currency === 'USD') ?? { available: 0, reserved: 0, fees: 0 };
    };
    /** A pending BR Pix deposit of USD 100.00 (1.5 % fee: 98.50 net); fee_on_payer: 100.00 net, 1.50 caja's. */
    const pending = async (m: Credentials, feeOnPayer = false) => {
      const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { country: 'BR', amount: '100.00', currency: 'USD', payment_method: 'IX', payer: PAYER, fee_on_payer: feeOnPayer });
      assert.equal(r.status, 200, r.text);
      return r.body.deposit_id as number;
    };
    const approve = (m: Credentials, id: number) => V3Client.deposits(s.url, m).post(`/v3/sandbox/deposits/${id}/approve`, '');
    /** caja's own balance of a kind in USD: one account, its row plus its unfolded deltas. */
    const house = async (kind: 'settlement' | 'fee_revenue') =>
      Number((await s.ctx.db.query<{ b: string | null }>(`SELECT sum(balance)::text AS b FROM ledger_balances WHERE merchant_key = 0 AND kind = $1 AND currency = 'USD'`, [kind])).rows[0]!.b ?? 0);
    const deltas = async () => (await s.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_balance_deltas')).rows[0]!.n;

    test('a completion credits through deltas; the fold moves them into the rows and changes no balance', async () => {
      await runDepositJobs(s.ctx);
      await foldBalances(s.ctx);
      const m = await createMerchant(s.url, `Fold ${++n}`);
      for (let i = 0; i < 3; i++) assert.equal((await approve(m, await pending(m))).status, 200);
      assert.ok((await deltas()) >= 3 * 3, 'available, fees and settlement each got a delta per completion');
      const before = { mine: await available(m), settlement: await house('settlement') };
      assert.deepEqual([before.mine.available, before.mine.fees], [295.5, 4.5]);
      await runDepositJobs(s.ctx);
      await foldBalances(s.ctx);
      assert.equal(await deltas(), 0, 'every delta folded');
      assert.deepEqual(await available(m), before.mine);
      assert.equal(await house('settlement'), before.settlement);
      const row = await s.ctx.db.query<{ balance: string }>(`SELECT balance::text FROM ledger_accounts WHERE merchant_key = $1 AND kind = 'available'`, [m.merchant_id]);
      assert.equal(row.rows[0]!.balance, '295.50', 'the row itself holds the balance after the fold');
      await assertLedgerOk(s.ctx.db);
      assert.deepEqual((await checkLedger(s.ctx.db, { full: true })).problems, []);
    });

    test('a batch of completions appends one balance delta per account and one figure delta per group, not one per completion (migration 097)', async () => {
      const m = await createMerchant(s.url, `Batch ${++n}`);
      const ids: number[] = [];
      for (let i = 0; i < 4; i++) ids.push(await pending(m));
      await runDepositJobs(s.ctx);
      await foldBalances(s.ctx);
      // Four completions in one transaction, as concurrent approvals share one (src/deposits/transitions.ts).
      await s.ctx.db.tx((q) => transitionAllIn(q, s.ctx, ids.map((depositId) => ({ depositId, to: 'COMPLETED' as const, cause: 'payment' as const, opts: { actor: 'test' } }))));
      const { rows } = await s.ctx.db.query<{ kind: string; n: number; amount: string }>(
        `SELECT a.kind, count(*)::int AS n, sum(d.amount)::text AS amount FROM ledger_balance_deltas d JOIN ledger_accounts a ON a.id = d.account_id
         WHERE a.merchant_key IN (0, $1) AND a.currency = 'USD' GROUP BY a.kind ORDER BY a.kind`,
        [m.merchant_id],
      );
      assert.deepEqual(rows, [{ kind: 'available', n: 1, amount: '394.00' }, { kind: 'fees', n: 1, amount: '6.00' }, { kind: 'settlement', n: 1, amount: '-400.00' }]);
      const figures = await s.ctx.db.query<{ created: number; completed: number; usd: string }>(
        `SELECT created::int, completed::int, completed_usd::text AS usd FROM panel_day_deltas WHERE merchant_id = $1`, [m.merchant_id],
      );
      assert.deepEqual(figures.rows, [{ created: 0, completed: 4, usd: '400.00' }]);
      assert.deepEqual([(await available(m)).available, (await available(m)).fees], [394, 6]);
      await assertLedgerOk(s.ctx.db);
    });

    test('the ledger check catches a delta that no entry made (incremental and full)', async () => {
      const m = await createMerchant(s.url, `Broken ${++n}`);
      assert.equal((await approve(m, await pending(m))).status, 200);
      await assertLedgerOk(s.ctx.db);
      const { rows } = await s.ctx.db.query<{ id: number }>(
        `INSERT INTO ledger_balance_deltas (account_id, amount) SELECT id, 0.01 FROM ledger_accounts WHERE merchant_key = $1 AND kind = 'available' RETURNING id`,
        [m.merchant_id],
      );
      try {
        for (const full of [false, true]) {
          const report = await checkLedger(s.ctx.db, { full });
          assert.equal(report.ok, false);
          assert.match(report.problems.join('\n'), new RegExp(`balances equal their entries: account \\d+ \\(${m.merchant_id}/USD/available\\) holds 98\\.51 but its entries sum to 98\\.50`));
        }
      } finally {
        await s.ctx.db.query('DELETE FROM ledger_balance_deltas WHERE id = $1', [rows[0]!.id]);
      }
      await assertLedgerOk(s.ctx.db);
    });

    test('a debit folds the credits committed before it and is refused beyond them', async () => {
      const m = await createMerchant(s.url, `Debit ${++n}`);
      assert.equal((await approve(m, await pending(m))).status, 200);
      // 98.50 is available only as a delta: the cashout folds it into the row and reserves from it.
      const ok = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: `hot-${n}-a`, amount: '60.00' }));
      assert.equal(ok.status, 200, ok.text);
      const refused = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: `hot-${n}-b`, amount: '40.00' }));
      assert.equal(refused.body.code, 514, refused.text);
      assert.deepEqual([(await available(m)).available, (await available(m)).reserved], [38.5, 60]);
      await assertLedgerOk(s.ctx.db);
    });

    test('concurrent completions of 20 merchants: every balance and caja\'s settlement and fee revenue exact', { skip: backend === 'pg' ? false : 'concurrency needs PostgreSQL' }, async () => {
      const merchants = await Promise.all(Array.from({ length: 20 }, () => createMerchant(s.url, `Hot ${++n}`)));
      const work: { m: Credentials; id: number; onPayer: boolean }[] = [];
      for (const m of merchants) for (let i = 0; i < 6; i++) work.push({ m, id: await pending(m, i % 3 === 0), onPayer: i % 3 === 0 });
      const settlement = await house('settlement');
      const revenue = await house('fee_revenue');
      // Every approval at once, twice each (a replay finds the transfer there and credits nothing).
      const results = await Promise.all([...work, ...work].map((w) => approve(w.m, w.id)));
      assert.ok(results.every((r) => r.status === 200 || r.status === 409), results.map((r) => r.status).join(','));
      for (const m of merchants) assert.deepEqual([(await available(m)).available, (await available(m)).fees], [4 * 98.5 + 2 * 100, 4 * 1.5]);
      // Payers paid 100.00 each, and 101.50 when they paid the fee on top.
      assert.equal(Math.round((await house('settlement') - settlement) * 100), -Math.round((80 * 100 + 40 * 101.5) * 100));
      assert.equal(Math.round((await house('fee_revenue') - revenue) * 100), 40 * 150);
      await assertLedgerOk(s.ctx.db);
      await runDepositJobs(s.ctx);
      await foldBalances(s.ctx);
      for (const m of merchants) assert.equal((await available(m)).available, 4 * 98.5 + 2 * 100);
      assert.deepEqual((await checkLedger(s.ctx.db, { full: true })).problems, []);
    });

    test('cashouts racing completions of one merchant never take more than has committed', { skip: backend === 'pg' ? false : 'concurrency needs PostgreSQL' }, async () => {
      const m = await createMerchant(s.url, `Race ${++n}`);
      await creditBalance(s.url, m, '10.00', 'USD', 'race funding');
      const ids = [];
      for (let i = 0; i < 10; i++) ids.push(await pending(m));
      const [completions, cashouts] = await Promise.all([
        Promise.all(ids.map((id) => approve(m, id))),
        Promise.all(Array.from({ length: 30 }, (_, i) => cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: `hot-race-${n}-${i}`, amount: '40.00' })))),
      ]);
      assert.ok(completions.every((r) => r.status === 200), completions.map((r) => r.text).join('\n'));
      const won = cashouts.filter((r) => r.status === 200).length;
      assert.ok(cashouts.every((r) => r.status === 200 || r.body.code === 514), cashouts.map((r) => r.text).join('\n'));
      // 10.00 + 10 × 98.50 = 995.00 credited; at most 24 cashouts of 40.00 fit in it.
      assert.ok(won <= 24, `${won} cashouts`);
      const b = await available(m);
      assert.deepEqual([b.available, b.reserved], [995 - 40 * won, 40 * won]);
      await assertLedgerOk(s.ctx.db);
    });

    test('a credit in flight holds no row: another merchant\'s and the same merchant\'s credits and debits go on past it', { skip: backend === 'pg' ? false : 'needs two connections (PostgreSQL)' }, async () => {
      const m = await createMerchant(s.url, `Held ${++n}`);
      await creditBalance(s.url, m, '50.00', 'USD', 'funding');
      const other = await createMerchant(s.url, `Other ${++n}`);
      const credit = (id: number, subject: number) => ({
        merchantId: id, kind: 'adjustment.credit', subjectType: 'adjustment' as const, subjectId: subject,
        postings: [merchantAccount(id, 'USD', 'available', fromDb('1.00')), cajaAccount('USD', 'settlement', fromDb('-1.00'))],
      });
      const rolledBack = new Error('rolled back on purpose');
      await assert.rejects(s.ctx.db.tx(async (held) => {
        // An uncommitted credit of m (its available, caja's settlement)...
        assert.ok(await transfer(held, credit(m.merchant_id, -1)));
        // ...and, on other connections with a lock timeout, what would have queued behind it.
        await s.ctx.db.tx(async (q) => {
          await q.query(`SET LOCAL lock_timeout = '5s'`);
          assert.ok(await transfer(q, credit(other.merchant_id, -2)), 'another merchant\'s credit');
          assert.ok(await transfer(q, credit(m.merchant_id, -3)), 'the same merchant\'s credit');
          assert.ok(await reserve(q, { merchantId: m.merchant_id, currency: 'USD', amount: fromDb('50.00'), kind: 'cashout.reserve', subjectType: 'adjustment', subjectId: -4 }),
            'a debit of what had committed');
          throw rolledBack;
        }).catch((err) => { if (err !== rolledBack) throw err; });
        throw rolledBack;
      }), (err) => err === rolledBack);
      assert.equal((await available(m)).available, 50);
      await assertLedgerOk(s.ctx.db);
    });
  });
}
