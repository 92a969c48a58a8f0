// Refunds of SPEI deposits paid through STP leave as STP orders (ordenPago/registra, signed) back
// to the account the money came from (the abono's cuentaOrdenante), with the send-once rules of
// payouts: a random claveRastreo stored before the send, the lease held for the whole send, a
// look-up before any resend, a found order adopted only when it is this refund's. Against the STP
// simulator (a separate process that verifies every firma), caja in production on PGlite and
// PostgreSQL, driven over HTTP; plus a refund no provider can make, refused at creation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../helpers/until.ts';
import { createHmac } from 'node:crypto';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, type Credentials, formPost, V3Client } from '../helpers/clients.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { trackConnectorRefunds } from '../../src/refunds/provider-refunds.ts';
import { buildClabe } from '../../src/domain/clabe.ts';
import { setRates } from '../helpers/four-eyes.ts';

const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };
/** What the simulator's payer bank sends every abono from (src/connectors/stp/simulator/bank.ts). */
const PAYER_ACCOUNT = '012180004567891239';
const OTHER_ACCOUNT = buildClabe('012', '180', '00123456789');

for (const backend of backends()) {
  describe(`SPEI refunds through STP (${backend})`, () => {
    let sim: StpSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;

    before(async () => {
      sim = await startStpSimulator();
      s = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500' });
      await sim.control.receiver(s.url);
      await setRates(s, { MXN: '18.00' });
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
      m = await createMerchant(s.url, 'SPEI refunds shop');
      v3 = V3Client.deposits(s.url, m);
    });

    after(async () => {
      const r = await admin(s.url, 'GET', '/admin/ledger/check');
      assert.equal(r.status, 200, r.text);
      await s.close();
      await sim.stop();
    });

    async function paidDeposit(amount: string) {
      const r = await v3.post('/v3/deposits', { country: 'MX', amount, currency: 'MXN', payment_method: 'SE', invoice_id: `stp-refund-${backend}-${++n}-${Date.now()}`, payer: MX_PAYER });
      assert.equal(r.status, 200, r.text);
      const clabe = r.body.payment_info.metadata.account as string;
      const paid = await sim.control.abono({ cuentaBeneficiario: clabe, monto: Number(r.body.payment_info.amount) });
      assert.deepEqual(paid.answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal((await v3.get(`/v3/deposits/${r.body.deposit_id}`)).body.status, 'COMPLETED');
      return r.body.deposit_id as number;
    }
    const sendRow = async (refundId: number) => (await s.ctx.db.query<{ reference: string; state: string; attempts: number }>(
      'SELECT reference, state, attempts FROM connector_refunds WHERE refund_id = $1', [refundId])).rows[0];
    const registras = async (clave: string) => (await sim.state()).requests.filter((r) => r.path.endsWith('/ordenPago/registra') && r.claveRastreo === clave).length;
    const ordersAt = async (clave: string) => (await sim.state()).orders.filter((o) => o.claveRastreo === clave);
    const refundStatus = async (id: number) => (await v3.get(`/v3/refunds/${id}`)).body.status as string;
    const available = async () => Math.round(Number((await v3.get('/v3/balance')).body.balances.find((b: { currency: string }) => b.currency === 'USD')?.available ?? 0) * 100);
    /** Waits until the refund's send step has left the row in one of `states`. */
    async function settled(refundId: number, states: string[]) {
      for (let i = 0; i < 600; i++) {
        const row = await sendRow(refundId);
        if (row && states.includes(row.state)) return row;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail(`refund ${refundId} never reached ${states.join('/')}: ${JSON.stringify(await sendRow(refundId))}`);
    }
    /** The connectors worker's refund pass, with every backoff skipped. */
    const pass = async () => {
      await s.ctx.db.query(`UPDATE connector_refunds SET next_check_at = now() - interval '1 second' WHERE state <> 'done'`);
      await trackConnectorRefunds(s.ctx);
    };

    test('refund → an STP order to the ordering account, for the refund\'s amount, with a random claveRastreo; liquidated → COMPLETED, merchant notified', async () => {
      const depositId = await paidDeposit('300.00');
      const before = await available();
      const r = await v3.post('/v3/refunds', { deposit_id: depositId, amount: '120.50', notification_url: 'https://shop.example/refunds' });
      assert.equal(r.status, 200, r.text);
      const refundId = r.body.refund_id as number;
      assert.equal(await refundStatus(refundId), 'PENDING');
      assert.ok((await available()) < before, 'the refund\'s share is reserved');
      const row = await settled(refundId, ['sent']);
      assert.match(row.reference, /^[A-Za-z0-9]{16,30}$/, 'a claveRastreo with room for randomness');
      assert.notEqual(row.reference, `refund${refundId}`, 'not derived from the refund id');
      const [order] = await ordersAt(row.reference);
      assert.ok(order, 'STP holds the order');
      assert.equal(order.monto, 120.5);
      assert.equal(order.cuentaBeneficiario, PAYER_ACCOUNT);
      assert.equal(order.institucionContraparte, '40012');
      assert.equal(order.nombreBeneficiario, 'JUAN PEREZ LOPEZ');
      assert.equal(order.rfcCurpBeneficiario, 'PELJ800101AB1');
      assert.equal(order.cuentaOrdenante, sim.config.ordering_clabe);
      assert.equal((await sim.state()).signatureFailures, 0);

      const lq = await sim.control.estado(row.reference, 'LQ', { delivery: 'duplicate' });
      assert.deepEqual(lq.answers.map((a) => a.status), [200, 200]);
      assert.equal(await refundStatus(refundId), 'COMPLETED');
      assert.equal((await v3.get(`/v3/deposits/${depositId}`)).body.refunded_amount, 120.5);
      await pass();
      const changes = await s.ctx.db.query<{ to_status: string }>('SELECT to_status FROM refund_status_changes WHERE refund_id = $1 ORDER BY id', [refundId]);
      assert.deepEqual(changes.rows.map((c) => c.to_status), ['PENDING', 'COMPLETED']);
      const notified = await s.ctx.db.query<{ body: string }>(`SELECT body FROM notifications WHERE url = 'https://shop.example/refunds'`);
      assert.deepEqual(notified.rows.map((x) => JSON.parse(x.body)), [{ refund_id: refundId }]);
      assert.equal(await registras(row.reference), 1);
      assert.equal((await sendRow(refundId))!.state, 'done');
    });

    test('devuelta (or cancelled) at STP → REJECTED, the reservation back to the available balance', async () => {
      const depositId = await paidDeposit('200.00');
      const before = await available();
      for (const estado of ['D', 'CN'] as const) {
        const r = await v3.post('/v3/refunds', { deposit_id: depositId, amount: '50.00' });
        assert.equal(r.status, 200, r.text);
        const row = await settled(r.body.refund_id, ['sent']);
        await sim.control.estado(row.reference, estado, { causaDevolucion: 1 });
        const got = (await v3.get(`/v3/refunds/${r.body.refund_id}`)).body;
        assert.equal(got.status, 'REJECTED', JSON.stringify(got));
        assert.equal(await available(), before, `${estado}: the money is back`);
      }
      assert.equal((await v3.get(`/v3/deposits/${depositId}`)).body.refunded_amount, 0);
    });

    test('the answer lost (STP registered it): looked up by its claveRastreo, never sent twice', async () => {
      const depositId = await paidDeposit('80.00');
      await sim.control.registraHang(1);
      const r = await v3.post('/v3/refunds', { deposit_id: depositId });
      assert.equal(r.status, 200, r.text);
      const row = await settled(r.body.refund_id, ['sending']);
      // The send's step ends when its answer times out (CAJA_CONNECTOR_TIMEOUT_MS) and releases the
      // lease: until then the next pass finds the row leased and leaves it (a loaded machine's
      // timers run late, so no fixed wait).
      await until('the hung send\'s step ended (its lease released)', async () =>
        (await s.ctx.db.query('SELECT 1 FROM connector_refunds WHERE refund_id = $1 AND leased_until IS NOT NULL', [r.body.refund_id])).rowCount, (leased) => leased === 0);
      assert.equal((await ordersAt(row.reference)).length, 1, 'STP registered it');
      await pass();
      assert.equal((await sendRow(r.body.refund_id))!.state, 'sent');
      await pass();
      assert.equal(await registras(row.reference), 1, 'looked up, not sent again');
      await sim.control.estado(row.reference, 'LQ');
      assert.equal(await refundStatus(r.body.refund_id), 'COMPLETED');
    });

    test('STP down at send time (or the process killed before the request left): looked up, then sent once', async () => {
      const depositId = await paidDeposit('90.00');
      await sim.control.outage('503');
      const r = await v3.post('/v3/refunds', { deposit_id: depositId, amount: '10.00' });
      assert.equal(r.status, 200, r.text);
      const row = await settled(r.body.refund_id, ['sending']);
      await pass();
      assert.equal((await sendRow(r.body.refund_id))!.state, 'sending');
      await sim.control.outage('none');
      // Three workers at once: one claims the row, the others find it leased.
      await s.ctx.db.query(`UPDATE connector_refunds SET next_check_at = now() - interval '1 second' WHERE state <> 'done'`);
      await Promise.all([trackConnectorRefunds(s.ctx), trackConnectorRefunds(s.ctx), trackConnectorRefunds(s.ctx)]);
      assert.equal((await sendRow(r.body.refund_id))!.state, 'sent');
      assert.equal((await ordersAt(row.reference)).length, 1);
      assert.equal(await registras(row.reference), 1, 'one order, after a look-up');
      await sim.control.estado(row.reference, 'LQ');
      assert.equal(await refundStatus(r.body.refund_id), 'COMPLETED');
    });

    test('an order at STP under the refund\'s claveRastreo that is not this refund\'s is never adopted', async () => {
      const depositId = await paidDeposit('70.00');
      await sim.control.outage('503');
      const r = await v3.post('/v3/refunds', { deposit_id: depositId, amount: '20.00' });
      const row = await settled(r.body.refund_id, ['sending']);
      await sim.control.outage('none');
      // Someone else's order carries the same claveRastreo (a restored database, another installation).
      await s.ctx.db.query(`UPDATE connector_refunds SET destination = jsonb_set(destination, '{account}', $2::jsonb) WHERE refund_id = $1`, [r.body.refund_id, JSON.stringify(OTHER_ACCOUNT)]);
      await pass();
      const mine = (await sendRow(r.body.refund_id))!;
      await s.ctx.db.query(`UPDATE connector_refunds SET destination = jsonb_set(destination, '{account}', $2::jsonb) WHERE refund_id = $1`, [r.body.refund_id, JSON.stringify(PAYER_ACCOUNT)]);
      const [order] = await ordersAt(row.reference);
      await sim.control.estado(row.reference, 'LQ');
      await pass();
      assert.equal(mine.state, 'sent');
      assert.equal(order.cuentaBeneficiario, OTHER_ACCOUNT);
      const after = await s.ctx.db.query<{ stopped: string | null; status: string }>(
        'SELECT cr.stopped, r.status FROM connector_refunds cr JOIN refunds r ON r.id = cr.refund_id WHERE refund_id = $1', [r.body.refund_id]);
      assert.equal(after.rows[0]!.status, 'PENDING', 'an order that is not this refund\'s completes nothing');
      assert.match(after.rows[0]!.stopped ?? '', /does not match/);
    });

    test('a refund no provider can make is refused at creation (v3 106, streamline 607): nothing reserved, no refund', async () => {
      // A bank transfer collected into the operator's own account: only a statement shows it, and
      // nothing in caja can send its money back.
      const own = { accounts: [{ country: 'BR', method: 'SB', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '4417', account: '13009218-7', document: '11444777000161' }] };
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/own_accounts', own)).status, 200);
      await setRates(s, { MXN: '18.00', BRL: '5.00' });
      const d = await v3.post('/v3/deposits', { country: 'BR', amount: '100.00', currency: 'BRL', payment_method: 'SB', invoice_id: `own-${backend}-${Date.now()}`, payer: { document: '11144477735', first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' } });
      assert.equal(d.status, 200, d.text);
      const done = await admin(s.url, 'POST', `/admin/deposits/${d.body.deposit_id}/complete`, { note: 'seen on the statement' });
      assert.equal(done.status, 200, done.text);
      const count = async () => (await s.ctx.db.query<{ n: string }>(
        `SELECT (SELECT count(*) FROM refunds) + (SELECT count(*) FROM ledger_transfers) AS n`)).rows[0]!.n;
      const before = [await count(), await available()];
      const account = { beneficiary: 'Maria Souza', bank_code: '260', branch: '0001', account_number: '12345-6', account_type: 'CHECKING' };
      const r = await v3.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '10.00', bank_account: account });
      assert.deepEqual([r.status, r.body.code, r.body.type], [403, 106, 'FEATURE_NOT_ENABLED'], r.text);
      assert.match(r.body.description, /no provider can refund/i);
      const f: Record<string, string> = { x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: '', x_document: String(d.body.deposit_id), x_amount: '10.00', x_bank_beneficiary: 'Maria Souza', x_bank: '260', x_bank_account: '12345-6', x_account_type: 'C', x_bank_branch: '0001' };
      f.x_control = createHmac('sha256', m.deposits.secret_key).update(`A${f.x_invoice}${f.x_document}${f.x_amount}${f.x_bank_beneficiary}${f.x_bank}${f.x_bank_account}${f.x_account_type}${f.x_bank_branch}`).digest('hex').toUpperCase();
      const sl = await formPost(s.url, '/api_curl/apd/refund', f);
      assert.deepEqual([sl.body.status, sl.body.error_code], ['ERROR', 607], sl.text);
      assert.deepEqual([await count(), await available()], before, 'nothing created, nothing reserved');
    });
  });
}
