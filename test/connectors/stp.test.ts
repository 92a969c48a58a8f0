// The STP connector (MX SPEI, both directions) against the STP simulator (a separate process with
// its own TLS and the operator's key pair: it verifies every firma), with caja in production on
// PGlite and PostgreSQL, driven over HTTP as a client and as STP would: configuration, deposits
// paid exactly, over, under, to an unknown CLABE, after expiry, duplicated and lost abonos; cashouts
// liquidated, cancelled, returned after liquidation, refused, STP down at send time, a send whose
// answer never came (and a crash right after 'sending' was stored), forged callbacks; the ledger
// checked after each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, cashoutRequest, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { buildClabe, isValidClabe } from '../../src/domain/clabe.ts';
import { reconcile } from '../../src/deposits/payments.ts';
import { payinConnectorNamed, payoutConnectorFor } from '../../src/connectors/registry.ts';
import { handOverDueCashouts } from '../../src/cashouts/payouts.ts';
import { runCashoutJobs } from '../../src/cashouts/worker.ts';
import type { StpConnector } from '../../src/connectors/stp/connector.ts';
import { fechaOperacion } from '../../src/connectors/stp/mapping.ts';
import { setRates, fundMerchant } from '../helpers/four-eyes.ts';
import { pollSeconds } from '../../src/connectors/kind.ts';
import { stpKind } from '../../src/connectors/stp/kind.ts';

const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };
const BENEFICIARY_CLABE = buildClabe('012', '180', '00123456789');

for (const backend of backends()) {
  describe(`STP connector through the STP simulator (${backend})`, () => {
    let sim: StpSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;

    before(async () => {
      sim = await startStpSimulator();
      s = await startTestServer(backend, {
        CAJA_ENV: 'production',
        CAJA_CONNECTOR_TIMEOUT_MS: '1500',
        CAJA_CASHOUT_DELAY_SECONDS: '0',
        CAJA_STP_ORDER_CHECK_SECONDS: '1',
      });
      await sim.control.receiver(s.url);
      await setRates(s, { MXN: '18.00' });
      m = await createMerchant(s.url, 'SPEI shop');
      v3 = V3Client.deposits(s.url, m);
      await fundMerchant(s, m.merchant_id, '1000.00', 'USD', 'test funding');
    });

    after(async () => {
      await ledgerOk();
      await s.close();
      await sim.stop();
    });

    async function ledgerOk() {
      const r = await admin(s.url, 'GET', '/admin/ledger/check');
      assert.equal(r.status, 200, r.text);
    }

    async function speiDeposit(amount = '100.00') {
      const r = await v3.post('/v3/deposits', { country: 'MX', amount, currency: 'MXN', payment_method: 'SE', invoice_id: `stp-${backend}-${++n}-${Date.now()}`, payer: MX_PAYER });
      assert.equal(r.status, 200, r.text);
      const info = r.body.payment_info;
      return { id: r.body.deposit_id as number, clabe: info.metadata.account as string, amount: Number(info.amount), info };
    }
    const depositStatus = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body.status as string;
    const recorded = async (clabe: string) =>
      (await s.ctx.db.query<{ payment_id: string; status: string; reason: string | null; seen_via: string }>(
        `SELECT payment_id, status, reason, seen_via FROM connector_payments WHERE connector = 'stp' AND charge_reference = $1 ORDER BY created_at`, [clabe])).rows;

    test('configuration: validated at once, secrets sealed and never answered, the key checked against STP', async () => {
      assert.equal((await admin(s.url, 'GET', '/admin/connectors/stp')).status, 404);
      const bad = await admin(s.url, 'PUT', '/admin/connectors/stp', {
        ...sim.config, api_url: 'http://stp.example', clabe_prefix: '12345', private_key_passphrase: 'wrong', ordering_clabe: '646180000000000000', ordering_rfc: 'x',
      });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.code, 201);
      for (const field of ['api_url', 'clabe_prefix', 'private_key', 'ordering_clabe', 'ordering_rfc']) assert.match(bad.body.details.join('\n'), new RegExp(`${field}:`));

      const put = await admin(s.url, 'PUT', '/admin/connectors/stp', sim.config);
      assert.equal(put.status, 200, put.text);
      for (const r of [put, await admin(s.url, 'GET', '/admin/connectors/stp')]) {
        assert.ok(!r.text.includes('PRIVATE KEY') && !r.text.includes(sim.config.private_key_passphrase), 'a secret was answered');
        assert.equal(r.body.private_key, '(set)');
        assert.equal(r.body.webhook_secret, null);
        assert.equal(r.body.clabe_prefix, sim.config.clabe_prefix);
        assert.equal(r.body.health.signature_accepted, true, JSON.stringify(r.body.health));
        assert.equal(r.body.health.abono_url, `${s.url}/connectors/stp/abono`);
      }
      const { rows } = await s.ctx.db.query<{ secrets: string; settings: unknown }>(`SELECT secrets, settings FROM connectors WHERE name = 'stp'`);
      assert.ok(!rows[0]!.secrets.includes('PRIVATE') && !rows[0]!.secrets.includes(sim.config.private_key_passphrase));
      assert.ok(!JSON.stringify(rows[0]!.settings).includes(sim.config.private_key_passphrase));
      // The registry: STP pays MX cashouts, nothing else.
      assert.equal((await payoutConnectorFor(s.ctx, 'MX'))?.name, 'stp');
      assert.equal(await payoutConnectorFor(s.ctx, 'BR'), null);
    });

    test('deposit paid exactly: its own CLABE in the range, abono read back and confirmed, completed once', async () => {
      const a = await speiDeposit('100.00');
      const b = await speiDeposit('100.00');
      for (const d of [a, b]) {
        assert.ok(d.clabe.startsWith(sim.config.clabe_prefix) && isValidClabe(d.clabe), d.clabe);
        assert.equal(d.info.metadata.beneficiary_name, 'Operadora Caja SA de CV');
      }
      assert.notEqual(a.clabe, b.clabe, 'one CLABE per deposit');
      const token = (await s.ctx.db.query<{ token: string }>('SELECT token FROM deposits WHERE id = $1', [a.id])).rows[0]!.token;
      const page = await (await fetch(`${s.url}/pay/${token}`)).text();
      assert.ok(page.includes(a.clabe) && page.includes(a.info.metadata.reference), 'the pay page shows the CLABE and the reference');
      const paid = await sim.control.abono({ cuentaBeneficiario: a.clabe, monto: a.amount });
      assert.deepEqual(paid.answers.map((x) => [x.status, x.answer]), [[200, { mensaje: 'confirmar' }]]);
      assert.equal(await depositStatus(a.id), 'COMPLETED');
      assert.equal(await depositStatus(b.id), 'PENDING');
      // A second transfer to a paid deposit's CLABE goes back.
      const again = await sim.control.abono({ cuentaBeneficiario: a.clabe, monto: a.amount });
      assert.deepEqual(again.answers[0]!.answer, { mensaje: 'devolver', id: 3 });
      assert.equal((await sim.state()).signatureFailures, 0);
      await ledgerOk();
    });

    test('abono duplicated: the same transfer posted twice applies once and is answered the same', async () => {
      const d = await speiDeposit('250.50');
      const dup = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount, delivery: 'duplicate' });
      assert.deepEqual(dup.answers.map((x) => x.answer), [{ mensaje: 'confirmar' }, { mensaje: 'confirmar' }]);
      const again = await sim.control.repostAbono(dup.order.claveRastreo);
      assert.deepEqual(again.answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal((await recorded(d.clabe)).length, 1);
      assert.equal(await depositStatus(d.id), 'COMPLETED');
      const completions = await s.ctx.db.query(`SELECT 1 FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'COMPLETED'`, [d.id]);
      assert.equal(completions.rows.length, 1);
      const credits = await s.ctx.db.query(`SELECT 1 FROM ledger_transfers WHERE subject_type = 'deposit' AND subject_id = $1`, [d.id]);
      assert.equal(credits.rows.length, 1, 'one ledger credit');
      await ledgerOk();
    });

    test('overpaid and underpaid: returned (devolver 13), the deposit stays PENDING, kept for the operator', async () => {
      const d = await speiDeposit('100.00');
      const over = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount + 0.01 });
      assert.deepEqual(over.answers[0]!.answer, { mensaje: 'devolver', id: 13 });
      const under = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount - 1 });
      assert.deepEqual(under.answers[0]!.answer, { mensaje: 'devolver', id: 13 });
      assert.equal(await depositStatus(d.id), 'PENDING');
      assert.deepEqual((await recorded(d.clabe)).map((r) => [r.status, r.reason!.split(':')[0]]), [['unmatched', 'overpaid'], ['unmatched', 'underpaid']]);
      const listed = await admin(s.url, 'GET', '/admin/connectors/stp/payments?status=unmatched&limit=500');
      assert.equal(listed.status, 200, listed.text);
      const mine = listed.body.payments.filter((p: { clabe: string }) => p.clabe === d.clabe);
      assert.deepEqual(mine.map((p: { amount: string; reason: string; deposit_id: number }) => [Number(p.amount), p.reason.split(':')[0], p.deposit_id]),
        [[99, 'underpaid', d.id], [100.01, 'overpaid', d.id]], 'newest first');
      // The exact amount still completes it.
      assert.deepEqual((await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount })).answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal(await depositStatus(d.id), 'COMPLETED');
      await ledgerOk();
    });

    test('unknown CLABE: returned (devolver 1), nothing credited', async () => {
      const unknown = buildClabe('646', sim.config.clabe_prefix.slice(3, 6), `${sim.config.clabe_prefix.slice(6)}9999999`);
      const r = await sim.control.abono({ cuentaBeneficiario: unknown, monto: 10 });
      assert.deepEqual(r.answers[0]!.answer, { mensaje: 'devolver', id: 1 });
      assert.equal((await recorded(unknown))[0]!.status, 'unmatched');
      await ledgerOk();
    });

    test('paid after expiry: returned (devolver 3), the deposit is not completed', async () => {
      const d = await speiDeposit('75.00');
      const { rows } = await s.ctx.db.query<{ expires_at: Date }>('SELECT expires_at FROM deposits WHERE id = $1', [d.id]);
      const late = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount, tsLiquidacion: rows[0]!.expires_at.getTime() + 5 * 60_000 });
      assert.deepEqual(late.answers[0]!.answer, { mensaje: 'devolver', id: 3 });
      assert.equal(await depositStatus(d.id), 'PENDING');
      assert.match((await recorded(d.clabe))[0]!.reason!, /^closed: paid at .* after the deposit expired/);
      await ledgerOk();
    });

    test('forged abono: a transfer STP does not show credits nothing (404); the webhook secret when set', async () => {
      const d = await speiDeposit('60.00');
      const forged = await fetch(`${s.url}/connectors/stp/abono`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        // Dated today: a date outside the window is refused before STP is asked (test/connectors/callback-bounds.test.ts).
        body: JSON.stringify({ id: 1, fechaOperacion: Number(fechaOperacion(new Date())), institucionOrdenante: 40012, claveRastreo: 'FORGED0001', monto: d.amount, cuentaBeneficiario: d.clabe }),
      });
      assert.equal(forged.status, 404);
      const garbage = await fetch(`${s.url}/connectors/stp/abono`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"monto":"x"}' });
      assert.equal(garbage.status, 400);
      assert.equal((await garbage.json()).code, 201);
      assert.equal(await depositStatus(d.id), 'PENDING');
      assert.equal((await recorded(d.clabe)).length, 0);

      const secret = 'a-long-webhook-secret-0123456789';
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/stp', { ...sim.config, webhook_secret: secret })).body.webhook_secret, '(set)');
      const refused = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount });
      assert.equal(refused.answers[0]!.status, 401);
      assert.equal(await depositStatus(d.id), 'PENDING');
      await sim.control.receiver(s.url, secret);
      assert.deepEqual((await sim.control.repostAbono(refused.order.claveRastreo)).answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal(await depositStatus(d.id), 'COMPLETED');
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
      await sim.control.receiver(s.url);
      await ledgerOk();
    });

    test('lost abono: the reconciliation of the day\'s received orders completes it, once', async () => {
      const d = await speiDeposit('120.00');
      const lost = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount, delivery: 'drop' });
      assert.equal(lost.answers.length, 0);
      assert.equal(await depositStatus(d.id), 'PENDING');
      const connector = (await payinConnectorNamed(s.ctx, 'stp'))!;
      const pass = await reconcile(s.ctx, connector, pollSeconds(s.ctx.config, stpKind), true);
      assert.ok(pass.ran && pass.payments >= 1);
      assert.equal(await depositStatus(d.id), 'COMPLETED');
      assert.deepEqual((await recorded(d.clabe)).map((r) => [r.status, r.seen_via]), [['applied', 'poll']]);
      // A second pass over the same day changes nothing; the late post of it is answered the same.
      await reconcile(s.ctx, connector, pollSeconds(s.ctx.config, stpKind), true);
      assert.deepEqual((await sim.control.repostAbono(lost.order.claveRastreo)).answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal((await recorded(d.clabe)).length, 1);
      await ledgerOk();
    });

    test('the same abono posted concurrently: one record, one credit, every post answered confirmar', async () => {
      const d = await speiDeposit('310.00');
      const { order } = await sim.control.abono({ cuentaBeneficiario: d.clabe, monto: d.amount, delivery: 'drop' });
      const body = JSON.stringify({
        id: order.idEF, fechaOperacion: order.fechaOperacion, institucionOrdenante: order.institucionContraparte, institucionBeneficiaria: 90646,
        claveRastreo: order.claveRastreo, monto: order.monto, cuentaBeneficiario: order.cuentaBeneficiario, tsLiquidacion: String(order.tsLiquidacion),
      });
      const answers = await Promise.all(Array.from({ length: 8 }, () =>
        fetch(`${s.url}/connectors/stp/abono`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => [r.status, await r.json()])));
      assert.deepEqual(answers, Array.from({ length: 8 }, () => [200, { mensaje: 'confirmar' }]));
      assert.equal((await recorded(d.clabe)).length, 1);
      assert.equal((await s.ctx.db.query(`SELECT 1 FROM ledger_transfers WHERE subject_type = 'deposit' AND subject_id = $1`, [d.id])).rows.length, 1);
      assert.equal(await depositStatus(d.id), 'COMPLETED');
      await ledgerOk();
    });

    test('a transfer to the operator\'s concentrating account is kept (confirmar) and credits no merchant', async () => {
      const r = await sim.control.abono({ cuentaBeneficiario: sim.config.ordering_clabe, monto: 5000 });
      assert.deepEqual(r.answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal((await recorded(sim.config.ordering_clabe)).length, 0);
      await ledgerOk();
    });

    // ---- payouts --------------------------------------------------------------------------

    let c = 0;
    const createCashout = async (over: Record<string, unknown> = {}) => {
      const external_id = `stp-co-${backend}-${++c}-${Date.now()}`;
      const r = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
        country: 'MX', currency: 'MXN', amount: '180.00', document_id: 'GODE561231GR8', beneficiary_name: 'Eva', beneficiary_lastname: 'Gómez',
        bank_code: '12', bank_account: BENEFICIARY_CLABE, account_type: 'C', external_id, ...over,
      });
      assert.equal(r.status, 200, r.text);
      return { id: r.body.cashout_id as number, external_id };
    };
    const cashoutStatus = async (cashout_id: number) => (await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id })).body;
    const payout = async (id: number) => (await s.ctx.db.query<{ reference: string; state: string; attempts: number; provider_id: string | null }>(
      'SELECT reference, state, attempts, provider_id FROM connector_payouts WHERE cashout_id = $1', [id])).rows[0];
    const registras = async (clave: string) => (await sim.state()).requests.filter((r) => r.path.endsWith('/ordenPago/registra') && r.claveRastreo === clave).length;
    const ordersAt = async (clave: string) => (await sim.state()).orders.filter((o) => o.claveRastreo === clave);
    /** Every order step due now (backoffs and check intervals skipped), then the cashout worker's pass. */
    const pass = async () => {
      await s.ctx.db.query(`UPDATE connector_payouts SET next_check_at = now() - interval '1 second' WHERE state <> 'done'`);
      await runCashoutJobs(s.ctx);
    };
    const available = async () => {
      const r = await v3.get('/v3/balance');
      return Math.round(Number(r.body.balances.find((b: { currency: string }) => b.currency === 'USD')?.available ?? 0) * 100);
    };

    test('payout liquidated: held and released before sending; sent signed with its claveRastreo; cancel then 510; LQ → COMPLETED once', async () => {
      const held = await createCashout({ on_hold: 'true' });
      await runCashoutJobs(s.ctx);
      assert.equal((await cashoutStatus(held.id)).cashout_status, 5, 'a held cashout is not sent');
      assert.equal(await payout(held.id), undefined);
      assert.equal((await cashoutRequest(s.url, m, 'PUT', '/v3/cashout/status', { cashout_id: held.id, status: 'PENDING' })).status, 200);

      await runCashoutJobs(s.ctx);
      assert.equal((await cashoutStatus(held.id)).cashout_status, 4, 'DELIVERED once the order is handed over');
      const row = (await payout(held.id))!;
      assert.equal(row.state, 'sent');
      assert.match(row.reference, /^CAJA[A-Z0-9]{20}$/, 'a random claveRastreo, stored before the order is sent');
      const [order] = await ordersAt(row.reference);
      assert.ok(order, 'STP holds the order');
      assert.equal(order.monto, 180);
      assert.equal(order.cuentaBeneficiario, BENEFICIARY_CLABE);
      assert.equal(order.tipoCuentaBeneficiario, 40);
      assert.equal(order.institucionContraparte, '40012');
      assert.equal(order.cuentaOrdenante, sim.config.ordering_clabe);
      assert.equal(String(order.idEF), row.provider_id);
      assert.equal((await sim.state()).signatureFailures, 0);

      const cancel = await cashoutRequest(s.url, m, 'DELETE', '/v3/cashout/cancel', { cashout_id: held.id, external_id: held.external_id });
      assert.equal(cancel.body.code, 510, cancel.text);

      const before = await available();
      const lq = await sim.control.estado(row.reference, 'LQ', { delivery: 'duplicate' });
      assert.deepEqual(lq.answers.map((a) => a.status), [200, 200]);
      assert.equal((await cashoutStatus(held.id)).cashout_status, 1, 'COMPLETED');
      assert.equal(await available(), before, 'the reservation is posted, nothing comes back');
      await pass();
      assert.equal((await cashoutStatus(held.id)).cashout_status, 1);
      const changes = await s.ctx.db.query<{ to_status: string }>(`SELECT to_status FROM cashout_status_changes WHERE cashout_id = $1 ORDER BY id`, [held.id]);
      assert.deepEqual(changes.rows.map((r) => r.to_status), ['ON_HOLD', 'PENDING', 'DELIVERED', 'COMPLETED'].slice(changes.rows[0]?.to_status === 'ON_HOLD' ? 0 : 1));
      assert.equal(await registras(row.reference), 1);
      await ledgerOk();
    });

    test('payout cancelled at STP: REJECTED, the reservation back to available', async () => {
      const before = await available();
      const co = await createCashout({ amount: '90.00' });
      await runCashoutJobs(s.ctx);
      const row = (await payout(co.id))!;
      await sim.control.estado(row.reference, 'CN');
      const st = await cashoutStatus(co.id);
      assert.equal(st.cashout_status, 3, JSON.stringify(st));
      assert.equal(await available(), before);
      await ledgerOk();
    });

    test('payout returned after liquidation: COMPLETED, then the late rejection (809) with money back', async () => {
      const before = await available();
      const co = await createCashout({ amount: '54.00' });
      await runCashoutJobs(s.ctx);
      const row = (await payout(co.id))!;
      await sim.control.estado(row.reference, 'LQ');
      assert.equal((await cashoutStatus(co.id)).cashout_status, 1);
      assert.ok((await available()) < before);
      await sim.control.estado(row.reference, 'D', { causaDevolucion: 1 });
      assert.equal((await cashoutStatus(co.id)).cashout_status, 3);
      const { rows } = await s.ctx.db.query<{ rejection_code: string }>('SELECT rejection_code FROM cashouts WHERE id = $1', [co.id]);
      assert.equal(rows[0]!.rejection_code, '809');
      assert.equal(await available(), before, 'the money came back to the merchant');
      // The return heard again (the worker's look-up, a repeated post) applies nothing more.
      await pass();
      await sim.control.estado(row.reference, 'D', { causaDevolucion: 1 });
      assert.equal(await available(), before);
      await ledgerOk();
    });

    test('a state change nobody made (forged estado) is looked up at STP and ignored', async () => {
      const co = await createCashout({ amount: '33.00' });
      await runCashoutJobs(s.ctx);
      const row = (await payout(co.id))!;
      for (const body of [{ id: Number(row.provider_id), empresa: sim.config.empresa, folioOrigen: row.reference, estado: 'LIQUIDACION' },
        { folioOrigen: row.reference, estado: 'DEVOLUCION', causaDevolucion: '1' }, { folioOrigen: 'CAJA0000000000NOPE', estado: 'LIQUIDACION' }]) {
        const r = await fetch(`${s.url}/connectors/stp/estado`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal(r.status, 200);
      }
      assert.equal((await cashoutStatus(co.id)).cashout_status, 4, 'still DELIVERED: STP says the order is not settled');
      const junk = await fetch(`${s.url}/connectors/stp/estado`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
      assert.equal(junk.status, 400);
      await sim.control.estado(row.reference, 'LQ');
      assert.equal((await cashoutStatus(co.id)).cashout_status, 1);
      await ledgerOk();
    });

    test('STP refuses the order: documented errors reject with their code; a signature STP cannot verify is retried', async () => {
      const before = await available();
      await sim.control.registraErrors([{ id: -11, descripcionError: 'El tipo de cuenta 40 es invalido' }]);
      const refused = await createCashout({ amount: '20.00' });
      await runCashoutJobs(s.ctx);
      assert.equal((await cashoutStatus(refused.id)).cashout_status, 3);
      assert.equal((await s.ctx.db.query<{ rejection_code: string }>('SELECT rejection_code FROM cashouts WHERE id = $1', [refused.id])).rows[0]!.rejection_code, '800');
      assert.equal(await available(), before);

      await sim.control.registraErrors([{ id: 0, descripcionError: 'Error validando la firma' }]);
      const retried = await createCashout({ amount: '21.00' });
      await runCashoutJobs(s.ctx);
      assert.equal((await cashoutStatus(retried.id)).cashout_status, 4);
      assert.equal((await payout(retried.id))!.state, 'sending');
      await pass();
      const row = (await payout(retried.id))!;
      assert.equal(row.state, 'sent');
      assert.equal((await ordersAt(row.reference)).length, 1);
      await sim.control.estado(row.reference, 'LQ');
      assert.equal((await cashoutStatus(retried.id)).cashout_status, 1);
      await ledgerOk();
    });

    test('STP down at send time: the cashout waits DELIVERED, is looked up, then sent once when STP is back', async () => {
      for (const mode of ['503', 'reset'] as const) {
        await sim.control.outage(mode);
        const co = await createCashout({ amount: '15.00' });
        await runCashoutJobs(s.ctx);
        assert.equal((await cashoutStatus(co.id)).cashout_status, 4);
        const row = (await payout(co.id))!;
        assert.deepEqual([row.state, row.attempts], ['sending', 1], mode);
        await pass();
        assert.equal((await payout(co.id))!.state, 'sending');
        await sim.control.outage('none');
        await pass();
        assert.equal((await payout(co.id))!.state, 'sent', mode);
        assert.equal((await ordersAt(row.reference)).length, 1);
        assert.equal(await registras(row.reference), 1, 'sent once, after a look-up');
        await sim.control.estado(row.reference, 'LQ');
        assert.equal((await cashoutStatus(co.id)).cashout_status, 1);
      }
      await ledgerOk();
    });

    test('killed mid-send: the order STP registered without answering is found by its claveRastreo, never sent twice', async () => {
      // The answer never comes (the process waiting for it died, or the network lost it).
      await sim.control.registraHang(1);
      const co = await createCashout({ amount: '42.00' });
      await runCashoutJobs(s.ctx);
      const row = (await payout(co.id))!;
      assert.equal(row.state, 'sending');
      assert.equal((await ordersAt(row.reference)).length, 1, 'STP registered it');
      await pass();
      assert.equal((await payout(co.id))!.state, 'sent');
      assert.equal(await registras(row.reference), 1, 'looked up, not sent again');

      // A crash right after 'sending' was stored, before the request left: the look-up finds
      // nothing, and then (only then) the order is sent.
      const crashed = await createCashout({ amount: '43.00' });
      const [id] = await handOverDueCashouts(s.ctx, (await payinConnectorNamed(s.ctx, 'stp') as StpConnector).payout);
      assert.equal(id, crashed.id);
      await s.ctx.db.query(`UPDATE connector_payouts SET state = 'sending', attempts = 1 WHERE cashout_id = $1`, [crashed.id]);
      await pass();
      const crashedRow = (await payout(crashed.id))!;
      assert.equal(crashedRow.state, 'sent');
      assert.equal((await ordersAt(crashedRow.reference)).length, 1);
      for (const clave of [row.reference, crashedRow.reference]) await sim.control.estado(clave, 'LQ');
      assert.equal((await cashoutStatus(co.id)).cashout_status, 1);
      assert.equal((await cashoutStatus(crashed.id)).cashout_status, 1);
      await ledgerOk();
    });

    test('two workers at once: one hand-over, one order at STP', async () => {
      const co = await createCashout({ amount: '12.00' });
      await Promise.all([runCashoutJobs(s.ctx), runCashoutJobs(s.ctx), runCashoutJobs(s.ctx)]);
      const row = (await payout(co.id))!;
      assert.equal(row.state, 'sent');
      assert.equal(await registras(row.reference), 1);
      assert.equal((await ordersAt(row.reference)).length, 1);
      await Promise.all([pass(), pass(), sim.control.estado(row.reference, 'LQ')]);
      assert.equal((await cashoutStatus(co.id)).cashout_status, 1);
      const completed = await s.ctx.db.query(`SELECT 1 FROM cashout_status_changes WHERE cashout_id = $1 AND to_status = 'COMPLETED'`, [co.id]);
      assert.equal(completed.rows.length, 1);
      await ledgerOk();
    });

    test('no state change heard: the worker looks the order up after CAJA_STP_ORDER_CHECK_SECONDS', async () => {
      const co = await createCashout({ amount: '11.00' });
      await runCashoutJobs(s.ctx);
      const row = (await payout(co.id))!;
      await sim.control.estado(row.reference, 'LQ', { delivery: 'drop' });
      assert.equal((await cashoutStatus(co.id)).cashout_status, 4);
      await pass();
      assert.equal((await cashoutStatus(co.id)).cashout_status, 1);
      assert.equal((await sim.state()).signatureFailures, 0, 'every firma caja sent verified');
      await ledgerOk();
    });

    test('the CLABE range exhausted: deposit creation refused (520), nothing stored, no CLABE given twice', async () => {
      // Every number of the range taken: the reservations in stp_clabes all find their number held.
      const db = s.ctx.db;
      const query = db.query;
      db.query = (async (sql: string, params?: unknown[], opts?: unknown) => {
        if (/INSERT INTO stp_clabes|FROM stp_clabes/.test(sql)) return { rows: [], rowCount: 0 };
        return query.call(db, sql, params, opts as never);
      }) as typeof query;
      try {
        const before = (await s.ctx.db.query('SELECT count(*)::int AS n FROM deposits')).rows[0]!.n;
        const refused = await v3.post('/v3/deposits', { country: 'MX', amount: '10.00', currency: 'MXN', payment_method: 'SE', invoice_id: `stp-full-${backend}-${Date.now()}`, payer: MX_PAYER });
        assert.equal(refused.status, 503, refused.text);
        assert.equal(refused.body.code, 520);
        assert.equal((await s.ctx.db.query('SELECT count(*)::int AS n FROM deposits')).rows[0]!.n, before);
      } finally {
        db.query = query;
      }
      const { rows } = await s.ctx.db.query<{ n: number; d: number }>(`SELECT count(*)::int AS n, count(DISTINCT connector_reference)::int AS d FROM deposits WHERE connector = 'stp'`);
      assert.equal(rows[0]!.n, rows[0]!.d, 'every STP deposit has its own CLABE');
      const reserved = await s.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deposits d WHERE connector = 'stp' AND NOT EXISTS (SELECT 1 FROM stp_clabes c WHERE c.clabe = d.connector_reference)`);
      assert.equal(reserved.rows[0]!.n, 0, 'every CLABE given is reserved');
    });
  });
}
