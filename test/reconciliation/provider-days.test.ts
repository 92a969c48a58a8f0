// The day closes by itself: caja in production with Pix and STP configured against their
// simulators (separate processes, own TLS and keys), a day of deposits, refunds (a Pix devolução,
// an STP order back to the payer) and payouts (an STP order, a Pix send); then the providers' own lists of the day
// (STP's received and sent orders, the PSP's received Pix with devoluções and its sent Pix), fetched by caja and
// imported through the upload path, reconcile every movement with 0 exceptions. Fetched again,
// the day changes nothing. The operator's own accounts are bank accounts: their day comes in the
// bank's statement, uploaded, and closes the same way. On PGlite and PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { camt053 } from '../helpers/statements.ts';
import { depositReference } from '../../src/domain/payment-info.ts';
import { admin, cashoutRequest, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { approveRequest, setRates } from '../helpers/four-eyes.ts';
import { buildClabe } from '../../src/domain/clabe.ts';
import { runCashoutJobs } from '../../src/cashouts/worker.ts';
import { fechaOperacion } from '../../src/connectors/stp/mapping.ts';
import { parseStatement } from '../../src/reconciliation/formats.ts';
import { providerStatementsWorker } from '../../src/reconciliation/statements-worker.ts';
import { until } from '../helpers/until.ts';

const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };
const BENEFICIARY_CLABE = buildClabe('012', '180', '00123456789');
const OWN_ACCOUNT = { country: 'BR', method: 'SB', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '4417', account: '13009218-7', document: '11444777000161' };

for (const backend of backends()) {
  describe(`a day reconciled from provider-fetched statements (${backend})`, () => {
    let pix: PixSimulator;
    let stp: StpSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;

    before(async () => {
      [pix, stp] = await Promise.all([startPixSimulator({ tokenTtl: 60, webhookBackoffMs: 100, webhookRetries: 2 }), startStpSimulator()]);
      s = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_PIX_POLL_SECONDS: '3600', CAJA_CONNECTOR_TIMEOUT_MS: '3000', CAJA_CASHOUT_DELAY_SECONDS: '0' }, { workers: true });
      await stp.control.receiver(s.url);
      await setRates(s, { MXN: '18.00', BRL: '5.00' });
      const pixConfigured = await admin(s.url, 'PUT', '/admin/connectors/pix', { ...pix.config, payouts: { max_amount: '500.00', check_seconds: 1 } });
      assert.equal(pixConfigured.status, 200, pixConfigured.text);
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/stp', stp.config)).status, 200);
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/own_accounts', { accounts: [OWN_ACCOUNT] })).status, 200);
      m = await createMerchant(s.url, 'Day shop');
      v3 = V3Client.deposits(s.url, m);
    });

    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s?.close();
      await Promise.all([pix?.stop(), stp?.stop()]);
    });

    const status = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body.status as string;
    const refundStatus = async (id: number) => (await v3.get(`/v3/refunds/${id}`)).body.status as string;

    async function pixPaid(amount: string): Promise<number> {
      const r = await v3.post('/v3/deposits', {
        country: 'BR', amount, currency: 'BRL', payment_method: 'IX', invoice_id: `day-pix-${backend}-${++n}-${Date.now()}`,
        payer: { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(r.status, 200, r.text);
      const { rows } = await s.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [r.body.deposit_id]);
      await pix.control.pay(rows[0]!.connector_reference);
      await until('pix deposit completed', () => status(r.body.deposit_id), (x) => x === 'COMPLETED');
      return r.body.deposit_id;
    }
    async function speiPaid(amount: string): Promise<number> {
      const r = await v3.post('/v3/deposits', { country: 'MX', amount, currency: 'MXN', payment_method: 'SE', invoice_id: `day-spei-${backend}-${++n}-${Date.now()}`, payer: MX_PAYER });
      assert.equal(r.status, 200, r.text);
      const paid = await stp.control.abono({ cuentaBeneficiario: r.body.payment_info.metadata.account, monto: Number(r.body.payment_info.amount) });
      assert.deepEqual(paid.answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal(await status(r.body.deposit_id), 'COMPLETED');
      return r.body.deposit_id;
    }
    const reference = async (table: 'connector_refunds' | 'connector_payouts', key: string, id: number) =>
      (await until(`${table} sent`, async () => (await s.ctx.db.query<{ reference: string; state: string }>(`SELECT reference, state FROM ${table} WHERE ${key} = $1`, [id])).rows[0],
        (r) => r?.state === 'sent' || r?.state === 'done'))!.reference;

    test('deposits, refunds and a payout of Pix and STP: the fetched day has 0 exceptions, fetched again it changes nothing', async () => {
      // Pix: two deposits, one refunded in part by a devolução the PSP settles.
      const pixA = await pixPaid('120.00');
      await pixPaid('35.50');
      const pixRefund = await v3.post('/v3/refunds', { deposit_id: pixA, amount: '20.00' });
      assert.equal(pixRefund.status, 200, pixRefund.text);
      await until('devolução at the PSP', async () => (await pix.state()).devolucoes.length, (x) => x === 1);
      await pix.control.settleDevolucoes();
      await until('pix refund completed', () => refundStatus(pixRefund.body.refund_id), (x) => x === 'COMPLETED');

      // STP: two abonos, one refunded in part by an order back to the payer; a payout liquidated.
      const speiA = await speiPaid('3000.00');
      await speiPaid('1250.75');
      const speiRefund = await v3.post('/v3/refunds', { deposit_id: speiA, amount: '400.25' });
      assert.equal(speiRefund.status, 200, speiRefund.text);
      const refundClave = await reference('connector_refunds', 'refund_id', speiRefund.body.refund_id);
      await stp.control.estado(refundClave, 'LQ');
      await until('spei refund completed', () => refundStatus(speiRefund.body.refund_id), (x) => x === 'COMPLETED');
      const co = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
        country: 'MX', currency: 'MXN', amount: '180.00', document_id: 'GODE561231GR8', beneficiary_name: 'Eva', beneficiary_lastname: 'Gómez',
        bank_code: '12', bank_account: BENEFICIARY_CLABE, account_type: 'C', external_id: `day-co-${backend}-${Date.now()}`,
      });
      assert.equal(co.status, 200, co.text);
      const cashoutId = co.body.cashout_id as number;
      await runCashoutJobs(s.ctx);
      const payoutClave = await reference('connector_payouts', 'cashout_id', cashoutId);
      await stp.control.estado(payoutClave, 'LQ');
      await until('payout completed', async () => (await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id: cashoutId })).body.cashout_status, (x) => x === 1);

      // Pix: a cashout paid as a Pix send (Efí's send API), made by the PSP.
      const brCashout = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
        country: 'BR', currency: 'BRL', amount: '20.00', document_id: cpf('529982247'), beneficiary_name: 'Maria', beneficiary_lastname: 'Souza',
        bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C', external_id: `day-br-${backend}-${Date.now()}`,
      });
      assert.equal(brCashout.status, 200, brCashout.text);
      const brCashoutId = brCashout.body.cashout_id as number;
      await runCashoutJobs(s.ctx);
      await until('pix payout completed', async () => (await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id: brCashoutId })).body.cashout_status, (x) => x === 1);

      // The simulators' own statements of the day show every movement (the STP one as caja reads STP's lists).
      const stpDay = `${fechaOperacion(new Date()).slice(0, 4)}-${fechaOperacion(new Date()).slice(4, 6)}-${fechaOperacion(new Date()).slice(6)}`;
      const pixDay = new Date().toISOString().slice(0, 10);
      const stpStatement = parseStatement('camt', Buffer.from(await stp.control.statement(stpDay, '10000.00')));
      assert.deepEqual(stpStatement.entries.map((e) => `${e.direction}:${e.amount}`).sort(), ['credit:1250.75', 'credit:3000.00', 'debit:180.00', 'debit:400.25']);
      assert.equal(stpStatement.closingBalance, '13670.50');

      // The day, fetched from the providers by caja (what the worker does for each closed day).
      const fetched = [
        ...(await admin(s.url, 'POST', '/admin/reconciliation/provider-statements', { date: stpDay, connector: 'stp' })).body.data,
        ...(await admin(s.url, 'POST', '/admin/reconciliation/provider-statements', { date: pixDay, connector: 'pix' })).body.data,
      ];
      assert.deepEqual(fetched.map((d: any) => [d.connector, d.status, d.entries, d.matched, d.exceptions]), [
        ['stp', 'imported', 4, 4, 0],
        ['pix', 'imported', 4, 4, 0],
      ], JSON.stringify(fetched));
      const open = await admin(s.url, 'GET', '/admin/reconciliation/exceptions?status=open');
      assert.deepEqual(open.body.data, [], 'nothing left for the operator');

      // Each outgoing movement is matched to its refund or cashout, never booked as an adjustment.
      const matches = (await admin(s.url, 'GET', '/admin/reconciliation/matches?limit=100')).body.data as { target: { type: string; id: number }; effect: string }[];
      const targets = matches.map((x) => `${x.target.type}:${x.target.id}:${x.effect}`);
      for (const t of [`refund:${pixRefund.body.refund_id}:confirmed`, `refund:${speiRefund.body.refund_id}:confirmed`, `cashout:${cashoutId}:confirmed`, `cashout:${brCashoutId}:confirmed`, `deposit:${speiA}:confirmed`, `deposit:${pixA}:confirmed`]) {
        assert.ok(targets.includes(t), `${t} in ${targets.join(', ')}`);
      }

      // Fetched again (the next pass of the worker, another process): imported once.
      const again = (await admin(s.url, 'POST', '/admin/reconciliation/provider-statements', { date: stpDay, connector: 'stp' })).body.data;
      assert.deepEqual(again.map((d: any) => [d.status, d.statement_id]), [['unchanged', fetched[0].statement_id]]);
      const statements = (await admin(s.url, 'GET', '/admin/reconciliation/statements?limit=100')).body.data as unknown[];
      assert.equal(statements.length, 2);

      // A late movement of a day already fetched: a new notification, the known entries stored once.
      await speiPaid('99.99');
      const late = (await admin(s.url, 'POST', '/admin/reconciliation/provider-statements', { date: stpDay, connector: 'stp' })).body.data;
      assert.deepEqual(late.map((d: any) => [d.status, d.entries, d.matched, d.exceptions, d.repeated]), [['imported', 5, 1, 0, 4]]);
    });

    test('own accounts the same day: transfers completed from the bank\'s own statement (uploaded: a bank, not a provider, sends it), 0 exceptions', async () => {
      const made = [] as number[];
      for (const amount of ['250.00', '80.40']) {
        const r = await v3.post('/v3/deposits', {
          country: 'BR', amount, currency: 'BRL', payment_method: 'SB', invoice_id: `day-own-${backend}-${++n}-${Date.now()}`,
          payer: { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
        });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.payment_info.metadata.reference, depositReference(r.body.deposit_id));
        made.push(r.body.deposit_id);
      }
      const today = new Date().toISOString().slice(0, 10);
      const file = camt053({
        statementId: `OWN-${backend}-${today}-${Date.now()}`, account: { other: OWN_ACCOUNT.account }, currency: 'BRL', date: today, opening: '5000.00',
        movements: made.map((id, i) => ({ amount: i === 0 ? '250.00' : '80.40', direction: 'credit' as const, date: today, bankId: `OWN-${i}`, reference: depositReference(id) })),
      });
      const r = await fetch(`${s.url}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, body: file });
      const body = await r.json();
      assert.equal(r.status, 201, JSON.stringify(body));
      // The bank's statement is the payment's only evidence: what credits a merchant waits for a
      // second operator (four eyes), who approves each in the console; then nothing is left.
      assert.deepEqual([body.entries, body.matched, body.exceptions], [2, 0, 2], JSON.stringify(body));
      for (const id of made) assert.equal(await status(id), 'PENDING');
      const { rows: waiting } = await s.ctx.db.query<{ id: number }>("SELECT id FROM approvals WHERE status = 'pending' AND kind = 'reconciliation_match' ORDER BY id");
      assert.equal(waiting.length, 2);
      for (const a of waiting) await approveRequest(s, a.id);
      for (const id of made) assert.equal(await status(id), 'COMPLETED');
      const open = await admin(s.url, 'GET', '/admin/reconciliation/exceptions?status=open');
      assert.deepEqual(open.body.data, [], 'the day, providers and own accounts, leaves nothing for the operator');
    });

    test('the worker: once the day is closed it fetches it by itself, each provider, and reconciles what is new', async () => {
      const before = (await admin(s.url, 'GET', '/admin/reconciliation/statements?limit=100')).body.data as { id: number }[];
      await pixPaid('12.34');
      await speiPaid('56.78');
      // The worker as a process runs it, a day later (today is closed), every second.
      const tomorrow = () => new Date(Date.now() + 86_400_000);
      const worker = providerStatementsWorker({ ...s.ctx, now: tomorrow, config: { ...s.ctx.config, providerStatements: { intervalSeconds: 1, days: 2 } } })!;
      try {
        const mine = await until('the worker imported both days', async () => ((await admin(s.url, 'GET', '/admin/reconciliation/statements?limit=100')).body.data as
          { id: number; imported_by: string; entries: number; matched: number; exceptions: number; repeated: number }[]).filter((x) => !before.some((b) => b.id === x.id)),
          (x) => x.length >= 2, 20_000);
        for (const st of mine) {
          assert.equal(st.imported_by, 'token:provider-statements-worker');
          assert.equal(st.exceptions, 0, JSON.stringify(st));
          assert.equal(st.entries - st.repeated, st.matched, 'only what is new is reconciled, all of it');
        }
        assert.deepEqual((await admin(s.url, 'GET', '/admin/reconciliation/exceptions?status=open')).body.data, []);
      } finally {
        await worker.stop();
      }
    });

    test('a day the provider cannot be read is reported failed; a bad day is refused in the API\'s format', async () => {
      await stp.control.outage('503');
      try {
        const r = await admin(s.url, 'POST', '/admin/reconciliation/provider-statements', { connector: 'stp' });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.data[0].status, 'failed');
        assert.match(r.body.data[0].error, /503/);
      } finally {
        await stp.control.outage('none');
      }
      for (const body of [{ date: '2026-02-30' }, { date: '2999-01-01' }, { date: 'yesterday' }, { connector: 'adyen' }]) {
        const r = await admin(s.url, 'POST', '/admin/reconciliation/provider-statements', body);
        assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
        assert.ok(r.body.code && r.body.description, r.text);
      }
    });
  });
}
