// Merchant balances on the ledger, through the API: what completed deposits credit (fees,
// fee_on_payer, test and crypto deposits, late payment, a local settlement currency), what
// refunds take and give back, refund idempotency, operator adjustments, and the ledger's own
// guarantees (immutability, the invariant check).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { runDepositJobs } from '../../src/deposits/worker.ts';
import { foldBalances } from '../../src/balances/fold-worker.ts';

const PAYER = { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
const ACCOUNT = { beneficiary: 'Maria Souza', bank_code: '260', branch: '0001', account_number: '12345-6', account_type: 'CHECKING' };

for (const backend of backends()) {
  describe(`balances (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    const merchant = async (name: string) => {
      const m = await createMerchant(s.url, name);
      return { m, v3: V3Client.deposits(s.url, m) };
    };
    const balances = async (v3: V3Client) => {
      const r = await v3.get('/v3/balance');
      assert.equal(r.status, 200, r.text);
      return Object.fromEntries(r.body.balances.map((b: any) => [b.currency, b]));
    };
    const paid = async (v3: V3Client, body: Record<string, unknown>) => {
      const r = await v3.post('/v3/deposits', { country: 'BR', amount: '100.00', currency: 'USD', payment_method: 'IX', payer: PAYER, ...body });
      assert.equal(r.status, 200, r.text);
      const ok = await v3.post(`/v3/sandbox/deposits/${r.body.deposit_id}/approve`, '');
      assert.equal(ok.status, 200, ok.text);
      return r.body.deposit_id as number;
    };

    test('a completed deposit credits its USD value minus the fee; fee_on_payer credits it whole', async () => {
      const { v3 } = await merchant('Credits');
      assert.deepEqual(await balances(v3), {});
      await paid(v3, {});
      // Pix is a bank transfer: 1.5 % fee.
      assert.deepEqual((await balances(v3)).USD, { currency: 'USD', available: 98.5, reserved: 0, total: 98.5, fees: 1.5 });
      await paid(v3, { fee_on_payer: true });
      assert.deepEqual((await balances(v3)).USD, { currency: 'USD', available: 198.5, reserved: 0, total: 198.5, fees: 1.5 });
      // In BRL at the creation rate: 543.21 BRL is USD 100.00 (rate 5.4321).
      await paid(v3, { amount: '543.21', currency: 'BRL' });
      assert.equal((await balances(v3)).USD.available, 297);
      const tx = (await v3.get('/v3/balance/transactions')).body.data;
      assert.deepEqual(tx.map((t: any) => [t.type, t.amount, t.fee, t.source.type]), [
        ['deposit.credit', 98.5, 1.5, 'deposit'], ['deposit.credit', 100, 0, 'deposit'], ['deposit.credit', 98.5, 1.5, 'deposit'],
      ]);
      const revenue = (await s.ctx.db.query(`SELECT balance FROM ledger_balances WHERE merchant_key = 0 AND kind = 'fee_revenue' AND currency = 'USD'`)).rows[0];
      assert.ok(Number(revenue.balance) >= 1.5, 'the payer-paid fee is caja revenue');
      await assertLedgerOk(s.ctx.db);
    });

    test('test deposits and crypto deposits never credit; a late payment credits when it completes', async () => {
      const { v3 } = await merchant('No credit');
      await paid(v3, { test: true });
      const crypto = await v3.post('/v3/deposits', { country: 'BR', amount: '60.00', currency: 'USD', payment_method: 'CR', payer: PAYER });
      assert.equal(crypto.status, 200, crypto.text);
      await v3.post(`/v3/sandbox/deposits/${crypto.body.deposit_id}/approve`, '');
      const done = await v3.post(`/v3/sandbox/deposits/${crypto.body.deposit_id}/approve`, '');
      assert.equal(done.body.status, 'COMPLETED', done.text);
      assert.deepEqual(await balances(v3), {});
      const late = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'USD', payment_method: 'IX', payer: PAYER });
      const real = s.ctx.now;
      s.ctx.now = () => new Date(Date.now() + 2 * 3600_000);
      try {
        await runDepositJobs(s.ctx);
        await foldBalances(s.ctx);
      } finally {
        s.ctx.now = real;
      }
      assert.equal((await v3.get(`/v3/deposits/${late.body.deposit_id}`)).body.status, 'CANCELLED');
      assert.deepEqual(await balances(v3), {});
      const r = await admin(s.url, 'POST', `/admin/deposits/${late.body.deposit_id}/complete`, { note: 'paid late' });
      assert.equal(r.status, 200, r.text);
      assert.equal((await balances(v3)).USD.available, 9.85);
      await assertLedgerOk(s.ctx.db);
    });

    test('refunds reserve their share of the credit, post it with the fee on completion, void it on rejection', async () => {
      const { v3 } = await merchant('Refunder');
      const id = await paid(v3, {});
      const r1 = await v3.post('/v3/refunds', { deposit_id: id, amount: '10.00', bank_account: ACCOUNT });
      assert.equal(r1.status, 200, r1.text);
      assert.deepEqual((await balances(v3)).USD, { currency: 'USD', available: 88.65, reserved: 9.85, total: 98.5, fees: 1.5 });
      await v3.post(`/v3/sandbox/refunds/${r1.body.refund_id}/complete`, '');
      assert.deepEqual((await balances(v3)).USD, { currency: 'USD', available: 88.65, reserved: 0, total: 88.65, fees: 1.35 });
      const r2 = await v3.post('/v3/refunds', { deposit_id: id, amount: '20.00', bank_account: ACCOUNT });
      await v3.post(`/v3/sandbox/refunds/${r2.body.refund_id}/reject`, '');
      assert.equal((await balances(v3)).USD.available, 88.65, 'a rejected refund gives its reservation back');
      // No amount: what remains (90.00); the credit is then exactly undone.
      const rest = await v3.post('/v3/refunds', { deposit_id: id, bank_account: ACCOUNT });
      assert.equal(rest.status, 200, rest.text);
      assert.equal((await v3.get(`/v3/refunds/${rest.body.refund_id}`)).body.amount, 90);
      await v3.post(`/v3/sandbox/refunds/${rest.body.refund_id}/complete`, '');
      assert.deepEqual((await balances(v3)).USD, { currency: 'USD', available: 0, reserved: 0, total: 0, fees: 0 });
      const none = await v3.post('/v3/refunds', { deposit_id: id, bank_account: ACCOUNT });
      assert.deepEqual([none.status, none.body.code], [400, 802]);
      const dep = await v3.get(`/v3/deposits/${id}`);
      assert.deepEqual([dep.body.refunded, dep.body.refunded_amount], [true, 100]);
      await assertLedgerOk(s.ctx.db);
    });

    test('a refund the balance cannot cover is 514 and changes nothing', async () => {
      const { m, v3 } = await merchant('Spent');
      const id = await paid(v3, {});
      const debit = await admin(s.url, 'POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'debit', amount: '98.00', currency: 'USD', reason: 'paid out elsewhere' });
      assert.equal(debit.status, 201, debit.text);
      const r = await v3.post('/v3/refunds', { deposit_id: id, amount: '10.00', bank_account: ACCOUNT });
      assert.deepEqual([r.status, r.body.code, r.body.type], [400, 514, 'INSUFFICIENT_FUNDS']);
      assert.equal((await s.ctx.db.query('SELECT count(*)::int AS n FROM refunds WHERE deposit_id = $1', [id])).rows[0].n, 0);
      assert.equal((await v3.post('/v3/refunds', { deposit_id: id, amount: '0.50', bank_account: ACCOUNT })).status, 200);
      await assertLedgerOk(s.ctx.db);
    });

    test('X-Idempotency-Key on refunds: a replay answers the first refund and moves money once; another body is 104', async () => {
      const { v3 } = await merchant('Replayer');
      const id = await paid(v3, {});
      const body = { deposit_id: id, amount: '5.00', bank_account: ACCOUNT };
      const key = { 'X-Idempotency-Key': `rk-${backend}-${Date.now()}` };
      const first = await v3.post('/v3/refunds', body, key);
      const again = await v3.post('/v3/refunds', body, key);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual([again.status, again.body.refund_id, again.headers.get('idempotent-replayed')], [200, first.body.refund_id, 'true']);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const misspelt = await v3.post('/v3/refunds', body, { 'X-Idempontency-Key': key['X-Idempotency-Key'] });
      assert.equal(misspelt.body.refund_id, first.body.refund_id);
      const other = await v3.post('/v3/refunds', { ...body, amount: '6.00' }, key);
      assert.deepEqual([other.status, other.body.code], [400, 104]);
      assert.equal((await s.ctx.db.query('SELECT count(*)::int AS n FROM refunds WHERE deposit_id = $1', [id])).rows[0].n, 1);
      assert.equal((await balances(v3)).USD.reserved, 4.92);
      await assertLedgerOk(s.ctx.db);
    });

    test('a merchant settling in BRL is credited the local amounts', async () => {
      const { m, v3 } = await merchant('Local');
      const patch = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { settlement_currency: 'BRL' });
      assert.deepEqual([patch.status, patch.body.settlement_currency], [200, 'BRL']);
      assert.equal((await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { settlement_currency: 'XYZ' })).body.code, 201);
      await paid(v3, { amount: '200.00', currency: 'BRL' });
      assert.deepEqual((await balances(v3)).BRL, { currency: 'BRL', available: 197, reserved: 0, total: 197, fees: 3 });
      await assertLedgerOk(s.ctx.db);
    });

    test('operators adjust balances with reason, recorded as the token that made the call (X-Operator is ignored); the ledger refuses edits; the check finds a broken balance', async () => {
      const { m, v3 } = await merchant('Adjusted');
      const credit = await s.app.inject({
        method: 'POST', url: `/admin/merchants/${m.merchant_id}/balance_adjustments`,
        headers: { authorization: `Bearer ${s.ctx.config.adminToken}`, 'x-operator': 'ana@ops' },
        payload: { direction: 'credit', amount: '12.34', currency: 'USD', reason: 'goodwill' },
      });
      assert.equal(credit.statusCode, 201, credit.body);
      assert.deepEqual([credit.json().actor, credit.json().reason, credit.json().amount], ['token:bootstrap', 'goodwill', '12.34']);
      const tooMuch = await admin(s.url, 'POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'debit', amount: '12.35', currency: 'USD', reason: 'x' });
      assert.deepEqual([tooMuch.status, tooMuch.body.code], [400, 514]);
      for (const bad of [{ direction: 'credit', amount: '1.001', currency: 'USD', reason: 'x' }, { direction: 'credit', amount: '1.5', currency: 'CLP', reason: 'x' }, { direction: 'up', amount: '1', currency: 'USD', reason: 'x' }]) {
        assert.equal((await admin(s.url, 'POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, bad)).status, 400, JSON.stringify(bad));
      }
      assert.equal((await admin(s.url, 'POST', '/admin/merchants/999999/balance_adjustments', { direction: 'credit', amount: '1', currency: 'USD', reason: 'x' })).status, 404);
      assert.equal((await balances(v3)).USD.available, 12.34);
      assert.equal((await admin(s.url, 'GET', `/admin/merchants/${m.merchant_id}/balance`)).body.balances[0].available, 12.34);
      await assert.rejects(s.ctx.db.query('UPDATE ledger_entries SET amount = amount * 2'), /immutable/);
      await assert.rejects(s.ctx.db.query('DELETE FROM ledger_transfers'), /immutable/);
      await assert.rejects(s.ctx.db.exec('TRUNCATE ledger_transfers CASCADE'), /immutable/);
      // An entry names a transfer that exists (checked once per statement: migration 099).
      await assert.rejects(
        s.ctx.db.query(`INSERT INTO ledger_entries (transfer_id, account_id, amount) SELECT (SELECT max(id) + 1 FROM ledger_transfers), id, 1 FROM ledger_accounts LIMIT 1`),
        /names transfer \d+, which does not exist/,
      );
      assert.equal((await admin(s.url, 'GET', '/admin/ledger/check')).status, 200);
      // A balance changed behind the ledger's back is found.
      await s.ctx.db.query(`UPDATE ledger_accounts SET balance = balance + 1 WHERE merchant_key = $1 AND kind = 'available'`, [m.merchant_id]);
      const broken = await admin(s.url, 'GET', '/admin/ledger/check');
      assert.equal(broken.status, 409);
      assert.match(broken.body.problems.join('\n'), /balances equal their entries: account \d+ \(\d+\/USD\/available\) holds 13.34 but its entries sum to 12.34/);
      await s.ctx.db.query(`UPDATE ledger_accounts SET balance = balance - 1 WHERE merchant_key = $1 AND kind = 'available'`, [m.merchant_id]);
      await assertLedgerOk(s.ctx.db);
    });

    test('the check reads what changed since its last checkpoint, keeps failing until repaired, and ?full=true reads everything', async () => {
      const check = async (full = false) => {
        const r = await admin(s.url, 'GET', `/admin/ledger/check${full ? '?full=true' : ''}`);
        return { status: r.status, mode: r.body.mode, transfers: r.body.counts?.transfers, problems: (r.body.problems ?? []).join('\n') };
      };
      // The checkpoint is a transaction id of the whole PostgreSQL server: a transaction open in
      // another database (another test file) when a check ran holds it back, and the next check
      // reads again every transfer from that point (never fewer). Alone on the server (PGlite),
      // that is exactly what came after the check.
      const sinceCheckpoint = async () => (await s.ctx.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ledger_transfers WHERE tx_id >= (SELECT below FROM ledger_checkpoints WHERE id = 1)`)).rows[0]!.n;
      assert.deepEqual((await check(true)).mode, 'full');
      const unproven = await sinceCheckpoint();
      if (backend === 'pglite') assert.equal(unproven, 0);
      const idle = await check();
      assert.deepEqual([idle.status, idle.mode, idle.transfers], [200, 'incremental', unproven], 'nothing new since the full check');
      const { v3 } = await merchant('Checked');
      const deposit = await paid(v3, {});
      const refund = await v3.post('/v3/refunds', { deposit_id: deposit, amount: '10.00', bank_account: ACCOUNT });
      assert.equal(refund.status, 200, refund.text);
      const fresh = await sinceCheckpoint();
      assert.ok(backend === 'pglite' ? fresh === 2 : fresh >= 2, `${fresh} transfers since the checkpoint`);
      const moved = await check();
      assert.deepEqual([moved.status, moved.mode, moved.transfers], [200, 'incremental', fresh], 'the credit and the reservation');
      // A refund marked COMPLETED behind the ledger's back (its reservation never posted) is found,
      // and found again by the next check: a failing check does not move the checkpoint.
      const id = refund.body.refund_id;
      await s.ctx.db.query(`UPDATE refunds SET status = 'COMPLETED', updated_at = now() WHERE id = $1`, [id]);
      for (let i = 0; i < 2; i++) {
        const broken = await check();
        assert.equal(broken.status, 409);
        assert.match(broken.problems, new RegExp(`refund reservations follow the refund: refund ${id} is COMPLETED but its reservation is unresolved`));
      }
      await s.ctx.db.query(`UPDATE refunds SET status = 'PENDING', updated_at = now() WHERE id = $1`, [id]);
      assert.equal((await check()).status, 200);
      // An edit dated long before the checkpoint is past what the incremental check looks at:
      // the full check finds it.
      // (A checkpoint held back by another database's open transaction reads this refund's
      // transfers again, and so finds it: never less safe.)
      await s.ctx.db.query(`UPDATE refunds SET status = 'COMPLETED', updated_at = now() - interval '2 days' WHERE id = $1`, [id]);
      const allProven = (await sinceCheckpoint()) === 0;
      if (backend === 'pglite') assert.ok(allProven);
      const blind = await check();
      assert.ok(allProven ? blind.status === 200 : [200, 409].includes(blind.status), `${blind.status}`);
      const full = await check(true);
      assert.deepEqual([full.status, full.mode], [409, 'full']);
      assert.match(full.problems, new RegExp(`refund ${id} is COMPLETED but its reservation is unresolved`));
      await s.ctx.db.query(`UPDATE refunds SET status = 'PENDING', updated_at = now() WHERE id = $1`, [id]);
      assert.deepEqual((await check(true)).status, 200);
      assert.equal((await admin(s.url, 'GET', '/admin/ledger/check?full=maybe')).status, 400);
    });
  });
}
