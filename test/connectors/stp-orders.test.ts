// Issue 38 §1: with two installations sharing a master key, or a row whose reference names
// another order, nothing is paid twice or "paid" without being sent. caja in production, STP as
// its simulator (a separate process that verifies every firma), on PGlite and PostgreSQL:
//   - two installations sharing a master key on one STP account: each cashout its own order
//   - an order found under a row's reference that is not the cashout's (amount, account,
//     beneficiary) is never adopted: the row is stopped, raised on /metrics and the console
//   - an order STP dates the next operation day is found (not left DELIVERED, not sent again)
//   - the lease is held through the send: a state hint arriving meanwhile runs no second step
// The database restored from a backup: stp-restore.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, type Credentials } from '../helpers/clients.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { cashoutStatus, createCashout, ordersAt, pass, payoutRow, prepare, PRODUCTION, registras } from '../helpers/stp-orders.ts';
import { runCashoutJobs } from '../../src/cashouts/worker.ts';
import { handOverDueCashouts, resendStoppedPayout } from '../../src/cashouts/payouts.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';
import type { StpConnector } from '../../src/connectors/stp/connector.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';

for (const backend of backends()) {
  describe(`STP orders that cannot be taken for another (${backend})`, () => {
    let sim: StpSimulator;
    let s: TestServer;
    let m: Credentials;

    before(async () => {
      sim = await startStpSimulator();
      s = await startTestServer(backend, PRODUCTION);
      m = await prepare(s, sim, 'SPEI shop');
    });
    after(async () => {
      await s?.close();
      await sim?.stop();
    });

    test('two installations sharing a master key on one STP account: each cashout its own order', async () => {
      const other = await startTestServer(backend, { ...PRODUCTION, CAJA_MASTER_KEY: s.ctx.config.masterKey.toString('base64') });
      try {
        const m2 = await prepare(other, sim, 'Other shop');
        // Both start from the same ids.
        const a = await createCashout(other.url, m2, '33.00');
        await runCashoutJobs(other.ctx);
        const aRow = (await payoutRow(other.ctx, a))!;
        await sim.control.estado(aRow.reference, 'LQ');
        assert.equal(await cashoutStatus(other.url, m2, a), 1);

        await sim.control.receiver(s.url);
        const b = await createCashout(s.url, m, '34.00');
        await runCashoutJobs(s.ctx);
        await pass(s.ctx);
        const bRow = (await payoutRow(s.ctx, b))!;
        assert.equal(await cashoutStatus(s.url, m, b), 4, 'DELIVERED, not COMPLETED by the other installation\'s order');
        assert.notEqual(bRow.reference, aRow.reference, 'the other installation\'s claveRastreo');
        assert.equal((await ordersAt(sim, bRow.reference)).length, 1, 'its own order sent');
      } finally {
        await other.close();
        await sim.control.receiver(s.url);
      }
    });

    test('an order found under the row\'s reference that is not the cashout\'s is never adopted: stopped, on /metrics and the console', async () => {
      const paid = await createCashout(s.url, m, '20.00');
      await runCashoutJobs(s.ctx);
      const paidRow = (await payoutRow(s.ctx, paid))!;
      await sim.control.estado(paidRow.reference, 'LQ');
      assert.equal(await cashoutStatus(s.url, m, paid), 1);

      // A row whose stored reference names an order STP holds for another amount and beneficiary
      // (a row restored from a backup with a reference used since, a second installation's order).
      const other = await createCashout(s.url, m, '21.00', { beneficiary_name: 'Ana', beneficiary_lastname: 'Ruiz' });
      const [handed] = await handOverDueCashouts(s.ctx, (await payinConnectorNamed(s.ctx, 'stp') as StpConnector).payout);
      assert.equal(handed, other);
      // (The paid row gives its reference up: in a restored database it does not exist at all.)
      await s.ctx.db.query(`UPDATE connector_payouts SET reference = reference || 'X' WHERE cashout_id = $1`, [paid]);
      await s.ctx.db.query(`UPDATE connector_payouts SET reference = $2, state = 'sending', attempts = 1 WHERE cashout_id = $1`, [other, paidRow.reference]);
      await pass(s.ctx);
      await pass(s.ctx);
      const row = (await payoutRow(s.ctx, other))!;
      assert.equal(row.state, 'stopped');
      assert.match(row.last_error ?? '', /amount 20 \(the cashout's is 21\.00\).*beneficiary EVA GOMEZ \(the cashout's is ANA RUIZ\)/);
      assert.equal(await cashoutStatus(s.url, m, other), 4, 'DELIVERED: neither completed nor rejected by an order that is not its own');
      assert.equal(await registras(sim, paidRow.reference), 1, 'nothing sent again under that reference');
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      assert.match(metrics, /caja_connector_orders_stopped\{connector="stp",kind="cashout"\} 1/);
      const op = await makeOperator(s, 'support', 'restore-support');
      const page = (await (await signedIn(s, op)).get('/ops/connectors')).html;
      assert.ok(page.includes(paidRow.reference) && page.includes(`Cashout ${other}`), 'the console shows the stopped order');
      assert.match(page, /the cashout&#39;s is 21\.00|the cashout's is 21\.00/);

      // The operator checked at STP that this cashout's order never left: sent again under a new
      // claveRastreo (`caja connector stp resend`), then paid once.
      const actor = { kind: 'token' as const, id: 0, name: 'cli', ip: null };
      assert.equal(await resendStoppedPayout(s.ctx.db, paid, actor), null, 'a cashout with no stopped order');
      // Settled by the operator days after the hand-over: the new order is looked up on today's days.
      await s.ctx.db.query(`UPDATE connector_payouts SET created_at = now() - interval '10 days' WHERE cashout_id = $1`, [other]);
      const resent = (await resendStoppedPayout(s.ctx.db, other, actor))!;
      assert.equal(resent.from, paidRow.reference);
      assert.notEqual(resent.to, paidRow.reference);
      assert.equal(await resendStoppedPayout(s.ctx.db, other, actor), null, 'once');
      await pass(s.ctx);
      const [order] = await ordersAt(sim, resent.to);
      assert.equal(order?.monto, 21, 'its own order at STP');
      await sim.control.estado(resent.to, 'LQ');
      assert.equal(await cashoutStatus(s.url, m, other), 1);
      const audit = await s.ctx.db.query<{ detail: Record<string, unknown> }>(`SELECT detail FROM operator_audit WHERE action = 'cashout.order_resent' AND subject = $1`, [`cashout:${other}`]);
      assert.deepEqual(audit.rows.map((r) => r.detail), [{ connector: 'stp', from: paidRow.reference, to: resent.to }]);
      assert.equal((await admin(s.url, 'GET', '/admin/ledger/check')).status, 200);
    });

    test('an order STP dates the next operation day is found: settled, never sent again', async () => {
      await sim.control.registraNextDay(1);
      const co = await createCashout(s.url, m, '15.00');
      await runCashoutJobs(s.ctx);
      const row = (await payoutRow(s.ctx, co))!;
      assert.equal(row.state, 'sent');
      await sim.control.estado(row.reference, 'LQ', { delivery: 'drop' });
      await pass(s.ctx);
      assert.equal(await cashoutStatus(s.url, m, co), 1, 'COMPLETED: the order dated tomorrow was found');

      // The answer lost too: the row stays 'sending'; the look-up finds the order dated the next
      // day, so registra is never called again.
      await sim.control.registraNextDay(1);
      await sim.control.registraHang(1);
      const lost = await createCashout(s.url, m, '16.00');
      await runCashoutJobs(s.ctx);
      const lostRow = (await payoutRow(s.ctx, lost))!;
      assert.equal(lostRow.state, 'sending');
      for (let i = 0; i < 4; i++) await pass(s.ctx);
      assert.equal(await registras(sim, lostRow.reference), 1, 'registra sent once');
      assert.equal((await payoutRow(s.ctx, lost))!.state, 'sent');
      await sim.control.estado(lostRow.reference, 'LQ');
      assert.equal(await cashoutStatus(s.url, m, lost), 1);
      assert.equal((await admin(s.url, 'GET', '/admin/ledger/check')).status, 200);
    });

    test('the lease is held for the whole send: a state hint during it runs no second step', async () => {
      // The checks below run while registra's answer is awaited: a server waiting the default 10 s
      // for it, not 1.5 s, which a loaded machine's checks could outlast (the send then over).
      const slow = await startTestServer(backend, { ...PRODUCTION, CAJA_CONNECTOR_TIMEOUT_MS: '10000' });
      try {
        const sm = await prepare(slow, sim, 'Slow SPEI shop');
        await sim.control.registraHang(1);
        const co = await createCashout(slow.url, sm, '17.00');
        // The send waits for an answer that never comes (up to CAJA_CONNECTOR_TIMEOUT_MS).
        const jobs = runCashoutJobs(slow.ctx);
        let clave = '';
        for (let i = 0; i < 300 && !clave; i++) {
          const st = await sim.state();
          const r = (await payoutRow(slow.ctx, co));
          if (r && st.requests.some((q) => q.claveRastreo === r.reference && q.status === null)) clave = r.reference;
          else await new Promise((res) => setTimeout(res, 20));
        }
        assert.ok(clave, 'the order registered, its answer pending');
        const lookupsBefore = (await sim.state()).requests.filter((q) => q.path.endsWith('/consOrdEnvRastreo')).length;
        // STP posts the state change while caja still waits for registra's answer.
        await sim.control.estado(clave, 'LQ');
        assert.equal(await cashoutStatus(slow.url, sm, co), 4, 'no second step ran alongside the send');
        assert.equal((await sim.state()).requests.filter((q) => q.path.endsWith('/consOrdEnvRastreo')).length, lookupsBefore, 'no look-up during the send');
        await jobs;
        // The hint was kept: the next step looks the order up and applies it, once.
        await runCashoutJobs(slow.ctx);
        await pass(slow.ctx);
        assert.equal(await cashoutStatus(slow.url, sm, co), 1);
        const completed = await slow.ctx.db.query(`SELECT 1 FROM cashout_status_changes WHERE cashout_id = $1 AND to_status = 'COMPLETED'`, [co]);
        assert.equal(completed.rows.length, 1);
      } finally {
        await sim.control.receiver(s.url);
        await slow.close();
      }
    });
  });
}
