// The payer rule (a merchant's payer_must_match) on Pix, against the API Pix simulator in
// production mode, on PGlite and PostgreSQL: a payment whose payer CPF the PSP reports (Efí's
// gnExtras.pagador) must be the deposit's payer; another payer's payment is refused, sent back in
// full (a devolução, once: the send-once job of src/deposits/send-backs.ts, also under concurrent
// reads and workers) and the merchant notified, the deposit staying PENDING; a PSP that does
// not report the payer completes the deposit with payer_checked false; with the rule off nothing
// is compared (payer_checked null).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { applyPayment, reconcile } from '../../src/deposits/payments.ts';
import { runSendBacks } from '../../src/deposits/send-backs.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { checkPayer } from '../../src/domain/payer-rule.ts';
import { until } from '../helpers/until.ts';

test('documents compare as spelt either way; an unreported payer is not a match', () => {
  assert.equal(checkPayer('111.444.777-35', '11144477735'), 'match');
  assert.equal(checkPayer('gode561231gr8', 'GODE561231GR8'), 'match');
  assert.equal(checkPayer('PELJ800101AB1', 'GODE561231GR8'), 'mismatch');
  assert.equal(checkPayer('11144477735', null), 'mismatch');
  assert.equal(checkPayer(undefined, '11144477735'), 'not_reported');
  assert.equal(checkPayer(null, '11144477735'), 'not_reported');
  assert.equal(checkPayer('', '11144477735'), 'not_reported');
});

const PAYER_CPF = cpf('111444777');
const OTHER_CPF = cpf('529982247');

for (const backend of backends()) {
  describe(`payer_must_match on Pix (${backend})`, () => {
    let sim: PixSimulator;
    let s: TestServer;
    let v3: V3Client;
    let merchantId: number;
    let n = 0;

    before(async () => {
      sim = await startPixSimulator({ webhookBackoffMs: 100, webhookRetries: 2 });
      s = await startTestServer(backend, {
        CAJA_ENV: 'production', CAJA_PIX_POLL_SECONDS: '3600', CAJA_EXPIRY_INTERVAL_MS: '200', CAJA_CONNECTOR_TIMEOUT_MS: '1500',
      }, { workers: true });
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
      await setRates(s, { BRL: '5.00' });
      const m = await createMerchant(s.url, 'Regulated shop');
      merchantId = m.merchant_id;
      v3 = V3Client.deposits(s.url, m);
    });
    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
      await sim.stop();
    });

    const setRule = async (on: boolean) => {
      const r = await admin(s.url, 'PATCH', `/admin/merchants/${merchantId}`, { payer_must_match: on });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.payer_must_match, on);
    };
    async function deposit() {
      const r = await v3.post('/v3/deposits', {
        country: 'BR', amount: '50.00', currency: 'BRL', payment_method: 'IX', invoice_id: `payer-${backend}-${++n}-${Date.now()}`,
        payer: { document: PAYER_CPF, first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(r.status, 200, r.text);
      const { rows } = await s.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [r.body.deposit_id]);
      return { id: r.body.deposit_id as number, txid: rows[0]!.connector_reference };
    }
    const view = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body;

    test('the rule is off by default: nothing compared, payer_checked null', async () => {
      const m = await admin(s.url, 'GET', `/admin/merchants/${merchantId}`);
      assert.equal(m.body.payer_must_match, false);
      const d = await deposit();
      await sim.control.pay(d.txid, { pagador: { nome: 'Outro', cpf: OTHER_CPF } });
      await until('completed', async () => (await view(d.id)).status, (x) => x === 'COMPLETED');
      assert.equal((await view(d.id)).payer_checked, null);
    });

    test('the payer the PSP reports is the deposit\'s: completed, payer_checked true', async () => {
      await setRule(true);
      const d = await deposit();
      await sim.control.pay(d.txid, { pagador: { nome: 'Maria Souza', cpf: PAYER_CPF } });
      await until('completed', async () => (await view(d.id)).status, (x) => x === 'COMPLETED');
      assert.equal((await view(d.id)).payer_checked, true);
    });

    test('another payer: refused, sent back in full once, the merchant notified, the deposit still PENDING', async () => {
      await setRule(true);
      const d = await deposit();
      const paid = await sim.control.pay(d.txid, { pagador: { nome: 'Outro', cpf: OTHER_CPF } });
      const refused = await until('refused and sent back', async () => (await s.ctx.db.query<{ status: string; returned_at: Date | null; return_reference: string }>(
        'SELECT status, returned_at, return_reference FROM connector_payments WHERE payment_id = $1', [paid.endToEndId])).rows[0], (r) => r?.returned_at != null);
      assert.equal(refused!.status, 'refused');
      await sim.control.webhooksIdle();
      await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
      const devs = (await sim.state()).devolucoes.filter((x: any) => x.endToEndId === paid.endToEndId);
      assert.equal(devs.length, 1, 'one devolução');
      assert.equal(devs[0].valor, '50.00');
      assert.equal(devs[0].id, refused!.return_reference);
      const v = await view(d.id);
      assert.equal(v.status, 'PENDING');
      const ev = await s.ctx.db.query<{ data: any }>(`SELECT data FROM events WHERE type = 'deposit.payment_refused' AND subject_id = $1`, [d.id]);
      assert.equal(ev.rows.length, 1);
      assert.equal(ev.rows[0]!.data.reason, 'payer_mismatch');
      const balance = await v3.get('/v3/balance');
      assert.equal(balance.status, 200);
      await assertLedgerOk(s.ctx.db);
    });

    test('another payer read by two callbacks and a poll at once, beside two payments workers: one devolução sent, looked up before any resend', async () => {
      await setRule(true);
      const d = await deposit();
      // The PSP's own webhook is held back: the reads below are the only ones.
      await sim.control.webhookMode('drop');
      try {
        const paid = await sim.control.pay(d.txid, { pagador: { nome: 'Outro', cpf: OTHER_CPF } });
        const pix = (await payinConnectorNamed(s.ctx, 'pix'))!;
        const truth = (await pix.readPayment(paid.endToEndId))!;
        await Promise.all([
          applyPayment(s.ctx, pix, truth, 'webhook'), applyPayment(s.ctx, pix, truth, 'webhook'), applyPayment(s.ctx, pix, truth, 'poll'),
          runSendBacks(s.ctx), runSendBacks(s.ctx),
        ]);
        const sent = await until('sent back', async () => (await s.ctx.db.query<{ returned_at: Date | null; return_reference: string }>(
          'SELECT returned_at, return_reference FROM connector_payments WHERE payment_id = $1', [paid.endToEndId])).rows[0], (r) => r?.returned_at != null);
        // Stepped again (as a worker after a lost answer would): looked up, never sent again.
        await s.ctx.db.query(`UPDATE connector_send_backs SET state = 'sending', next_check_at = now() WHERE payment_id = $1`, [paid.endToEndId]);
        await Promise.all([runSendBacks(s.ctx), runSendBacks(s.ctx)]);
        // The server's own payments worker may hold the row's lease at that moment: stepped until settled.
        await until('settled again', async () => {
          await runSendBacks(s.ctx);
          return (await s.ctx.db.query<{ state: string }>('SELECT state FROM connector_send_backs WHERE payment_id = $1', [paid.endToEndId])).rows[0]!.state;
        }, (state) => state === 'sent');
        const calls = (await sim.state()).requests.filter((q) => q.path.endsWith(`/devolucao/${sent!.return_reference}`));
        assert.equal(calls.filter((q) => q.method === 'PUT').length, 1, 'one devolução request');
        assert.ok(calls.some((q) => q.method === 'GET'), 'looked up before any resend');
        const devs = (await sim.state()).devolucoes.filter((x: any) => x.endToEndId === paid.endToEndId);
        assert.equal(devs.length, 1);
        assert.equal(devs[0].valor, '50.00');
        const job = await s.ctx.db.query<{ state: string }>('SELECT state FROM connector_send_backs WHERE payment_id = $1', [paid.endToEndId]);
        assert.deepEqual(job.rows, [{ state: 'sent' }]);
        assert.equal((await view(d.id)).status, 'PENDING');
        assert.equal((await s.ctx.db.query(`SELECT 1 FROM events WHERE type = 'deposit.payment_refused' AND subject_id = $1`, [d.id])).rows.length, 1);
      } finally {
        await sim.control.webhookMode('deliver');
      }
    });

    test('a devolução the PSP holds under the send-back\'s id that is not the payment\'s (another valor): never adopted, stopped for the operator', async () => {
      await setRule(true);
      const d = await deposit();
      const paid = await sim.control.pay(d.txid, { pagador: { nome: 'Outro', cpf: OTHER_CPF } });
      await until('sent back', async () => (await s.ctx.db.query<{ returned_at: Date | null }>(
        'SELECT returned_at FROM connector_payments WHERE payment_id = $1', [paid.endToEndId])).rows[0], (r) => r?.returned_at != null);
      // As if the payment had been read as 40.00 and the step's answer lost: the look-up finds the 50.00 devolução.
      await s.ctx.db.query(`UPDATE connector_payments SET amount = 40.00 WHERE payment_id = $1`, [paid.endToEndId]);
      await s.ctx.db.query(`UPDATE connector_send_backs SET state = 'sending', next_check_at = now() WHERE payment_id = $1`, [paid.endToEndId]);
      const job = await until('stopped', async () => {
        await runSendBacks(s.ctx);
        return (await s.ctx.db.query<{ state: string; stopped: string | null }>('SELECT state, stopped FROM connector_send_backs WHERE payment_id = $1', [paid.endToEndId])).rows[0]!;
      }, (r) => r.state === 'stopped');
      assert.match(job.stopped!, /valor 50\.00/);
      assert.equal((await sim.state()).devolucoes.filter((x: any) => x.endToEndId === paid.endToEndId).length, 1, 'nothing sent again');
      assert.match(await (await fetch(`${s.url}/metrics`)).text(), /caja_connector_orders_stopped\{connector="pix",kind="send_back"\} 1/);
      // The operator's: the gauge stays until the row is settled by hand.
      await s.ctx.db.query(`UPDATE connector_send_backs SET state = 'done' WHERE payment_id = $1`, [paid.endToEndId]);
    });

    test('a PSP that does not report the payer: completed, payer_checked false', async () => {
      await setRule(true);
      const d = await deposit();
      await sim.control.pay(d.txid);
      await until('completed', async () => (await view(d.id)).status, (x) => x === 'COMPLETED');
      assert.equal((await view(d.id)).payer_checked, false);
      await assertLedgerOk(s.ctx.db);
    });
  });
}

for (const backend of backends()) {
  describe(`payer_must_match on SPEI through the STP simulator (${backend})`, () => {
    let sim: StpSimulator;
    let s: TestServer;
    let v3: V3Client;
    let n = 0;
    before(async () => {
      sim = await startStpSimulator();
      s = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500' });
      await sim.control.receiver(s.url);
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
      await setRates(s, { MXN: '18.00' });
      const m = await createMerchant(s.url, 'Mexican fintech');
      v3 = V3Client.deposits(s.url, m);
      const r = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { payer_must_match: true });
      assert.equal(r.status, 200, r.text);
    });
    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
      await sim.stop();
    });
    async function speiDeposit() {
      const r = await v3.post('/v3/deposits', {
        country: 'MX', amount: '100.00', currency: 'MXN', payment_method: 'SE', invoice_id: `payer-stp-${backend}-${++n}-${Date.now()}`,
        payer: { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' },
      });
      assert.equal(r.status, 200, r.text);
      return { id: r.body.deposit_id as number, clabe: r.body.payment_info.metadata.account as string, amount: Number(r.body.payment_info.amount) };
    }

    test('the ordering RFC is the deposit payer\'s: confirmed, completed, payer_checked true', async () => {
      const d = await speiDeposit();
      const r = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount, rfcCurpOrdenante: 'GODE561231GR8' });
      assert.deepEqual(r.answers[0]!.answer, { mensaje: 'confirmar' });
      const view = (await v3.get(`/v3/deposits/${d.id}`)).body;
      assert.equal(view.status, 'COMPLETED');
      assert.equal(view.payer_checked, true);
    });

    test('a confirmed abono the ordering bank takes back: a spei_return found by the reconciliation, once; the deposit RETURNED', async () => {
      const d = await speiDeposit();
      const r = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount, rfcCurpOrdenante: 'GODE561231GR8' });
      assert.deepEqual(r.answers[0]!.answer, { mensaje: 'confirmar' });
      await sim.control.returnAbono(r.order.claveRastreo);
      const stp = (await payinConnectorNamed(s.ctx, 'stp'))!;
      await reconcile(s.ctx, stp, 3600, true);
      await reconcile(s.ctx, stp, 3600, true);
      const { rows } = await s.ctx.db.query<{ kind: string; status: string; reason: string }>('SELECT kind, status, reason FROM deposit_returns WHERE deposit_id = $1', [d.id]);
      assert.deepEqual(rows, [{ kind: 'spei_return', status: 'applied', reason: 'estado D' }]);
      const view = (await v3.get(`/v3/deposits/${d.id}`)).body;
      assert.equal(view.status, 'COMPLETED');
      assert.equal(view.returned, 'RETURNED');
      await assertLedgerOk(s.ctx.db);
    });

    test('another RFC (the issue\'s PELJ800101AB1 paying for GODE561231GR8): devolver 13, the deposit PENDING, the merchant notified', async () => {
      const d = await speiDeposit();
      const r = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount, rfcCurpOrdenante: 'PELJ800101AB1' });
      assert.deepEqual(r.answers[0]!.answer, { mensaje: 'devolver', id: 13 });
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.status, 'PENDING');
      const { rows } = await s.ctx.db.query<{ status: string; payer_document: string }>(
        `SELECT status, payer_document FROM connector_payments WHERE connector = 'stp' AND charge_reference = $1`, [d.clabe]);
      assert.deepEqual(rows, [{ status: 'refused', payer_document: 'PELJ800101AB1' }]);
      const ev = await s.ctx.db.query(`SELECT 1 FROM events WHERE type = 'deposit.payment_refused' AND subject_id = $1`, [d.id]);
      assert.equal(ev.rows.length, 1);
      // The same abono posted again is answered the same.
      assert.equal((await s.ctx.db.query(`SELECT 1 FROM ledger_transfers WHERE subject_type = 'deposit' AND subject_id = $1`, [d.id])).rows.length, 0);
      await assertLedgerOk(s.ctx.db);
    });

    test('another RFC whose abono post was lost (STP accepted the money): the poll refuses it and sends it back by one order, even from two workers and after a lost answer', async () => {
      const d = await speiDeposit();
      const r = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount, rfcCurpOrdenante: 'PELJ800101AB1', delivery: 'drop' });
      assert.deepEqual(r.answers, []);
      const stp = (await payinConnectorNamed(s.ctx, 'stp'))!;
      const paymentId = `${r.order.claveRastreo}:${String(r.order.institucionContraparte)}:${String(r.order.fechaOperacion)}`;
      // The first send's answer is lost (STP registered the order): nothing is marked sent.
      await sim.control.registraHang(1);
      await reconcile(s.ctx, stp, 3600, true);
      const row = async () => (await s.ctx.db.query<{ status: string; seen_via: string; return_reference: string; returned_at: Date | null }>(
        `SELECT status, seen_via, return_reference, returned_at FROM connector_payments WHERE connector = 'stp' AND payment_id = $1`, [paymentId])).rows[0]!;
      const first = await row();
      assert.equal(first.status, 'refused');
      assert.equal(first.seen_via, 'poll');
      assert.match(first.return_reference, /^CAJAD[A-Z0-9]{15}$/);
      assert.equal(first.returned_at, null);
      // Two readers and two payments workers at once (truly concurrent), then a later poll: the
      // send-back's job is looked up first (STP holds the order the lost answer registered), never registered twice.
      const truth = (await stp.readPayment(paymentId))!;
      await Promise.all([applyPayment(s.ctx, stp, truth, 'poll'), applyPayment(s.ctx, stp, truth, 'poll'), runSendBacks(s.ctx), runSendBacks(s.ctx)]);
      const sent = await until('sent back by the payments worker', async () => {
        await Promise.all([runSendBacks(s.ctx), runSendBacks(s.ctx)]);
        return row();
      }, (x) => x.returned_at !== null);
      await reconcile(s.ctx, stp, 3600, true);
      const job = await s.ctx.db.query<{ state: string; reference: string }>(`SELECT state, reference FROM connector_send_backs WHERE connector = 'stp' AND payment_id = $1`, [paymentId]);
      assert.deepEqual(job.rows, [{ state: 'sent', reference: first.return_reference }]);
      assert.equal(sent.return_reference, first.return_reference);
      const state = await sim.state();
      const orders = state.orders.filter((o: any) => o.claveRastreo === first.return_reference);
      assert.equal(orders.length, 1, 'one order back');
      assert.equal(orders[0].monto, d.amount);
      assert.equal(orders[0].cuentaBeneficiario, r.order.cuentaOrdenante, 'to the ordering account');
      assert.equal(state.requests.filter((q) => q.path.endsWith('/registra') && q.claveRastreo === first.return_reference).length, 1, 'registered once');
      // The lost post arrives late: confirmar (caja sends it back itself; devolver would return it twice).
      const late = await sim.control.repostAbono(r.order.claveRastreo);
      assert.deepEqual(late.answers[0]!.answer, { mensaje: 'confirmar' });
      await reconcile(s.ctx, stp, 3600, true);
      assert.equal((await sim.state()).orders.filter((o: any) => o.claveRastreo === first.return_reference).length, 1);
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.status, 'PENDING');
      const ev = await s.ctx.db.query(`SELECT 1 FROM events WHERE type = 'deposit.payment_refused' AND subject_id = $1`, [d.id]);
      assert.equal(ev.rows.length, 1);
      assert.equal((await s.ctx.db.query(`SELECT 1 FROM ledger_transfers WHERE subject_type = 'deposit' AND subject_id = $1`, [d.id])).rows.length, 0);
      await assertLedgerOk(s.ctx.db);
    });

    test('another RFC answered devolver by the post: the poll then sends nothing (STP returns it)', async () => {
      const d = await speiDeposit();
      const r = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount, rfcCurpOrdenante: 'PELJ800101AB1' });
      assert.deepEqual(r.answers[0]!.answer, { mensaje: 'devolver', id: 13 });
      const before = (await sim.state()).requests.filter((q) => q.path.endsWith('/registra')).length;
      await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'stp'))!, 3600, true);
      assert.equal((await sim.state()).requests.filter((q) => q.path.endsWith('/registra')).length, before);
      const { rows } = await s.ctx.db.query<{ seen_via: string; returned_at: Date | null }>(
        `SELECT seen_via, returned_at FROM connector_payments WHERE connector = 'stp' AND charge_reference = $1`, [d.clabe]);
      assert.deepEqual(rows, [{ seen_via: 'webhook', returned_at: null }]);
    });
  });
}
