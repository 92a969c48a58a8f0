// A caja process really killed (SIGKILL) between signing a refund's STP order (an SPEI refund,
// back to the payer's account) and STP's answer: STP registered the order, the process never
// heard back. Another process on the same PostgreSQL takes the refund over once the dead one's
// lease lapses, finds the order at STP by its claveRastreo, and sends nothing more: one order,
// one refund. caja runs as the compiled server (dist/main.mjs), STP as its simulator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, createMerchant, V3Client } from '../helpers/clients.ts';
import { stpCrashBench, until } from '../helpers/stp-crash-bench.ts';
import { setRates } from '../helpers/four-eyes.ts';

const bench = stpCrashBench('caja_stp_refund_crash');
const { skip } = bench;

test('SIGKILL while STP holds the answer to a refund\'s order: the next process finds it by its claveRastreo and never sends a second one', { skip, timeout: 180_000 }, async () => {
  // The first process waits up to 5 s for STP (its lease on the refund: 2 × 5 s + 5 s).
  const sim = bench.sim();
  const a = await bench.start(5000);
  // The second operator who approves the rate (and the funding) production asks for.
  const ops = await bench.reach(a.base);
  await sim.control.receiver(a.base);
  assert.equal((await admin(a.base, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
  await setRates(ops, { MXN: '18.00' });
  const m = await createMerchant(a.base, 'Refund crash shop');
  const v3a = V3Client.deposits(a.base, m);
  const d = await v3a.post('/v3/deposits', { country: 'MX', amount: '250.00', currency: 'MXN', payment_method: 'SE', invoice_id: `refund-crash-${Date.now()}`, payer: { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' } });
  assert.equal(d.status, 200, d.text);
  const paid = await sim.control.abono({ cuentaBeneficiario: d.body.payment_info.metadata.account, monto: Number(d.body.payment_info.amount) });
  assert.deepEqual(paid.answers[0]!.answer, { mensaje: 'confirmar' });
  await sim.control.registraHang(1);
  const r = await v3a.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '100.00' });
  assert.equal(r.status, 200, r.text);
  const refundId = r.body.refund_id as number;

  const client = await bench.client();
  const row = async () => (await client.query<{ reference: string; state: string }>('SELECT reference, state FROM connector_refunds WHERE refund_id = $1', [refundId])).rows[0];
  // STP registered the order and keeps the answer; the process is waiting for it.
  const sending = await until('the order registered at STP, unanswered', async () => ({ row: await row(), state: await sim.state() }),
    (v) => v.row?.state === 'sending' && v.state.requests.some((q) => q.claveRastreo === v.row!.reference && q.status === null));
  const clave = sending.row!.reference;
  a.child.kill('SIGKILL');
  await new Promise((res) => a.child.once('exit', res));

  const b = await bench.start(1500);
  await sim.control.receiver(b.base);
  // Once the dead process's lease lapses, the new one's worker looks the order up and finds it.
  await until('the refund\'s order taken over as sent', row, (x) => x?.state === 'sent', 90_000);
  const state = await sim.state();
  assert.equal(state.orders.filter((o) => o.claveRastreo === clave).length, 1, 'one order at STP');
  assert.equal(state.requests.filter((q) => q.path.endsWith('/ordenPago/registra') && q.claveRastreo === clave).length, 1, 'never sent again');
  assert.equal(state.signatureFailures, 0);

  await sim.control.estado(clave, 'LQ');
  const v3b = V3Client.deposits(b.base, m);
  await until('COMPLETED', async () => (await v3b.get(`/v3/refunds/${refundId}`)).body.status, (x) => x === 'COMPLETED', 30_000);
  const completions = await client.query(`SELECT 1 FROM refund_status_changes WHERE refund_id = $1 AND to_status = 'COMPLETED'`, [refundId]);
  assert.equal(completions.rows.length, 1);
  assert.equal((await admin(b.base, 'GET', '/admin/ledger/check')).status, 200);
});
