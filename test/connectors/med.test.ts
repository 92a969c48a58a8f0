// MED (Mecanismo Especial de Devolução) against the API Pix simulator, in production mode, on
// PGlite and PostgreSQL: the payer's bank returns a settled Pix (a devolução of natureza MED_*)
// without the merchant asking. caja finds it from the webhook (reading GET /pix/{e2eid} back), or
// from the poll when no webhook came, records it once against its deposit, takes the deposit's
// share back from the balance (into debt when the balance does not cover it, paid back by the
// next credit), shows the deposit returned in part or in full, and notifies the merchant. A MED on
// a Pix no deposit took is an operator exception. The ledger check holds after each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, cashoutRequest, createMerchant, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { reconcile } from '../../src/deposits/payments.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { until } from '../helpers/until.ts';

for (const backend of backends()) {
  describe(`MED returns through the API Pix simulator (${backend})`, () => {
    let sim: PixSimulator;
    let s: TestServer;
    let n = 0;

    before(async () => {
      sim = await startPixSimulator({ webhookBackoffMs: 100, webhookRetries: 2 });
      s = await startTestServer(backend, {
        CAJA_ENV: 'production', CAJA_PIX_POLL_SECONDS: '3600', CAJA_EXPIRY_INTERVAL_MS: '200', CAJA_CONNECTOR_TIMEOUT_MS: '1500',
      }, { workers: true });
      // With payouts (Efí's send API), so a BR cashout is served: refused only by a debt.
      const put = await admin(s.url, 'PUT', '/admin/connectors/pix', { ...sim.config, payouts: { max_amount: '500.00', check_seconds: 60 } });
      assert.equal(put.status, 200, put.text);
      await setRates(s, { BRL: '5.00' });
    });
    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
      await sim.stop();
    });

    const merchant = async () => {
      const m = await createMerchant(s.url, `MED shop ${++n}`);
      return { m, v3: V3Client.deposits(s.url, m) };
    };
    /** A BRL 100.00 Pix deposit, paid and COMPLETED (USD 20.00 at 5.00; 1.5 % fee: 19.70 available); `horario`: when the Pix settled. */
    async function paidDeposit(v3: V3Client, horario?: string) {
      const r = await v3.post('/v3/deposits', {
        country: 'BR', amount: '100.00', currency: 'BRL', payment_method: 'IX', invoice_id: `med-${backend}-${++n}-${Date.now()}`,
        payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(r.status, 200, r.text);
      const id = r.body.deposit_id as number;
      const { rows } = await s.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [id]);
      const paid = await sim.control.pay(rows[0]!.connector_reference, horario ? { horario } : undefined);
      await until('completed', async () => (await v3.get(`/v3/deposits/${id}`)).body.status, (x) => x === 'COMPLETED');
      await sim.control.webhooksIdle();
      return { id, e2eid: paid.endToEndId as string };
    }
    const available = async (v3: V3Client) => {
      const r = await v3.get('/v3/balance');
      assert.equal(r.status, 200, r.text);
      return (r.body.balances.find((b: any) => b.currency === 'USD')?.available ?? 0) as number;
    };
    const returnsOf = async (depositId: number) =>
      (await s.ctx.db.query<{ provider_return_id: string; reason: string; amount: string; status: string; seen_via: string; debit: string }>(
        'SELECT provider_return_id, reason, amount::text, status, seen_via, debit::text FROM deposit_returns WHERE deposit_id = $1 ORDER BY id', [depositId])).rows;
    const poll = async () => reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);

    test('a MED the balance covers: found from the webhook, recorded once, the deposit shows it, the merchant is notified', async () => {
      const { m, v3 } = await merchant();
      const d = await paidDeposit(v3);
      await paidDeposit(v3);
      assert.equal(await available(v3), 39.4);
      const med = await sim.control.med(d.e2eid, { valor: '40.00', natureza: 'MED_FRAUDE', motivo: 'golpe' });
      await until('MED recorded', () => returnsOf(d.id), (r) => r.length === 1);
      await sim.control.webhooksIdle();
      const [r] = await returnsOf(d.id);
      assert.equal(r!.provider_return_id, med.rtrId);
      assert.equal(r!.reason, 'MED_FRAUDE');
      assert.equal(r!.amount, '40.00');
      assert.equal(r!.status, 'applied');
      assert.equal(r!.debit, '8.00', '40 % of the USD 20.00 the deposit brought in');
      assert.equal(await available(v3), 31.4);
      const view = await v3.get(`/v3/deposits/${d.id}`);
      assert.equal(view.body.status, 'COMPLETED');
      assert.equal(view.body.returned, 'PARTIALLY_RETURNED');
      assert.equal(view.body.returned_amount, 40);
      const events = await s.ctx.db.query<{ data: any }>(`SELECT data FROM events WHERE type = 'deposit.returned' AND subject_id = $1`, [d.id]);
      assert.equal(events.rows.length, 1);
      assert.equal(events.rows[0]!.data.reason, 'MED_FRAUDE');
      // The same return read again (the poll, a replayed webhook): nothing more.
      await poll();
      await sim.control.med(d.e2eid, { valor: '60.00', natureza: 'MED_OPERACIONAL', notify: false });
      await poll();
      const both = await returnsOf(d.id);
      assert.deepEqual(both.map((x) => [x.reason, x.seen_via]), [['MED_FRAUDE', 'webhook'], ['MED_OPERACIONAL', 'poll']]);
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.returned, 'RETURNED');
      assert.equal(await available(v3), 19.4, 'the whole USD 20.00 taken back, once');
      await poll();
      assert.equal((await returnsOf(d.id)).length, 2);
      assert.equal(m.merchant_id > 0, true);
      await assertLedgerOk(s.ctx.db);
    });

    test('a MED beyond the balance: a debt the next credit pays; a cashout is refused (514) until it is paid', async () => {
      const { m, v3 } = await merchant();
      const d = await paidDeposit(v3);
      // The merchant refunds 70.00 (reserved from available): 5.91 left of 19.70.
      const refund = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '70.00' });
      assert.equal(refund.status, 200, refund.text);
      assert.equal(await available(v3), 5.91);
      // The payer's bank returns the other 30.00 (USD 6.00): 0.09 owed.
      await sim.control.med(d.e2eid, { valor: '30.00' });
      await until('MED recorded', () => returnsOf(d.id), (r) => r.length === 1);
      assert.equal(await available(v3), -0.09);
      const debt = async () => Number((await s.ctx.db.query<{ b: string | null }>(
        `SELECT balance::text AS b FROM ledger_balances WHERE merchant_key = (SELECT merchant_id FROM deposits WHERE id = $1) AND kind = 'debt'`, [d.id])).rows[0]?.b ?? 0);
      assert.equal(await debt(), -0.09);
      await assertLedgerOk(s.ctx.db);
      const cashout = (id: string) => cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
        external_id: `med-${backend}-${id}-${Date.now()}`, country: 'BR', currency: 'USD', amount: '1.00', document_id: cpf('529982247'), beneficiary_name: 'Maria',
        beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
      });
      const refused = await cashout('debt');
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.code, 514, refused.text);
      assert.equal(await debt(), -0.09, 'nothing moved');
      await paidDeposit(v3);
      assert.equal(await available(v3), 19.61);
      // The fold worker pays the debt from the new credit.
      await until('debt paid', debt, (x) => x === 0);
      assert.equal(await available(v3), 19.61);
      // The debt paid, a cashout is taken again.
      const taken = await cashout('after');
      assert.notEqual(taken.body?.code, 514, taken.text);
      await assertLedgerOk(s.ctx.db);
    });

    test('several MED returns across deposits, days after their Pix, found only by the poll\'s returns pass: each once, the balance and the ledger exact', async () => {
      const { v3 } = await merchant();
      const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
      const paid = [await paidDeposit(v3, daysAgo(12)), await paidDeposit(v3, daysAgo(11)), await paidDeposit(v3, daysAgo(10))];
      assert.equal(await available(v3), 59.1);
      // Settled two and three days ago, long after their Pix; no webhook: only the poll's 90-day returns pass finds them.
      const meds = [
        await sim.control.med(paid[0]!.e2eid, { natureza: 'MED_FRAUDE', horario: daysAgo(3), notify: false }),
        await sim.control.med(paid[1]!.e2eid, { valor: '50.00', natureza: 'MED_OPERACIONAL', horario: daysAgo(3), notify: false }),
        await sim.control.med(paid[2]!.e2eid, { valor: '10.00', natureza: 'MED_PIX_AUTOMATICO', horario: daysAgo(2), notify: false }),
        await sim.control.med(paid[2]!.e2eid, { valor: '15.00', natureza: 'MED_FRAUDE', horario: daysAgo(2), notify: false }),
      ];
      await poll();
      await poll();
      const found = await Promise.all(paid.map((p) => returnsOf(p.id)));
      assert.deepEqual(found.map((rs) => rs.map((r) => [r.provider_return_id, r.reason, r.amount, r.status, r.seen_via, r.debit])), [
        [[meds[0].rtrId, 'MED_FRAUDE', '100.00', 'applied', 'poll', '20.00']],
        [[meds[1].rtrId, 'MED_OPERACIONAL', '50.00', 'applied', 'poll', '10.00']],
        [[meds[2].rtrId, 'MED_PIX_AUTOMATICO', '10.00', 'applied', 'poll', '2.00'], [meds[3].rtrId, 'MED_FRAUDE', '15.00', 'applied', 'poll', '3.00']],
      ]);
      const views = await Promise.all(paid.map(async (p) => (await v3.get(`/v3/deposits/${p.id}`)).body));
      assert.deepEqual(views.map((v) => [v.status, v.returned, v.returned_amount]), [
        ['COMPLETED', 'RETURNED', 100], ['COMPLETED', 'PARTIALLY_RETURNED', 50], ['COMPLETED', 'PARTIALLY_RETURNED', 25]]);
      assert.equal(await available(v3), 24.1, '59.10 less the USD 35.00 returned, once each');
      await assertLedgerOk(s.ctx.db);
    });

    test('a MED on a Pix no deposit took is kept for the operator; the same MED by webhook and poll is recorded once', async () => {
      const paid = await sim.control.payKey('25.00');
      // No webhook for a Pix without txid: the poll finds the payment, then its MED.
      await poll();
      await sim.control.med(paid.endToEndId, { valor: '25.00', notify: false });
      await poll();
      await poll();
      const { rows } = await s.ctx.db.query<{ status: string; deposit_id: number | null; payment_id: string }>(
        'SELECT status, deposit_id, payment_id FROM deposit_returns WHERE payment_id = $1', [paid.endToEndId]);
      assert.deepEqual(rows, [{ status: 'unmatched', deposit_id: null, payment_id: paid.endToEndId }]);
      const listed = await admin(s.url, 'GET', '/admin/returns?status=unmatched');
      assert.equal(listed.status, 200, listed.text);
      assert.ok(listed.body.data.some((r: any) => r.payment_id === paid.endToEndId && r.status === 'unmatched'));

      const { v3 } = await merchant();
      const d = await paidDeposit(v3);
      await sim.control.med(d.e2eid, { valor: '10.00' });
      await Promise.all([poll(), until('MED recorded', () => returnsOf(d.id), (r) => r.length === 1)]);
      await sim.control.webhooksIdle();
      await poll();
      assert.equal((await returnsOf(d.id)).length, 1);
      assert.equal(await available(v3), 17.7);
      await assertLedgerOk(s.ctx.db);
    });
  });
}
