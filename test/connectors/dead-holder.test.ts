// Issue 45, item 2: a process killed mid-send holds leases on its rows (a payout order, a
// refund), each as long as two requests to the provider. The next process on the same PostgreSQL
// sees that the lease's holder is gone (its session ended: src/jobs/send-once.ts) and takes the
// row over at once, well before the lease would have lapsed: it looks the order up by its
// reference, finds it at STP and sends nothing more. caja runs as the compiled server, STP as its
// simulator; the first process is really killed (SIGKILL).
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, cashoutRequest, createMerchant, V3Client } from '../helpers/clients.ts';
import { buildClabe } from '../../src/domain/clabe.ts';
import { stpCrashBench, until } from '../helpers/stp-crash-bench.ts';
import { fundMerchant, setRates } from '../helpers/four-eyes.ts';

const bench = stpCrashBench('caja_dead_holder', { CAJA_CASHOUT_DELAY_SECONDS: '0' });
const { skip } = bench;
/**
 * The killed process waits this long for STP: its lease on a row is 2 × 40 s + 5 s, long enough
 * that the next process's start on a loaded machine (seconds) stays well inside it.
 */
const SLOW_MS = 40_000;

const live: import('node:child_process').ChildProcess[] = [];
afterEach(async () => {
  for (const c of live.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await new Promise((r) => c.once('exit', r));
    }
  }
});

type Leased = { reference: string; state: string; leased_until: Date | null };

async function killAndTakeOver(table: 'connector_payouts' | 'connector_refunds', key: 'cashout_id' | 'refund_id', id: number, a: { child: import('node:child_process').ChildProcess }) {
  const sim = bench.sim();
  const client = await bench.client();
  const row = async () => (await client.query<Leased>(`SELECT reference, state, leased_until FROM ${table} WHERE ${key} = $1`, [id])).rows[0];
  // STP registered the order and keeps the answer; the process waits for it, holding the lease.
  const sending = await until('the order registered at STP, unanswered', async () => ({ row: await row(), state: await sim.state() }),
    (v) => v.row?.state === 'sending' && v.row.leased_until !== null && v.state.requests.some((r) => r.claveRastreo === v.row!.reference && r.status === null));
  const clave = sending.row!.reference;
  const leaseEnd = sending.row!.leased_until!.getTime();
  a.child.kill('SIGKILL');
  await new Promise((r) => a.child.once('exit', r));

  const b = await bench.start(1500);
  const started = Date.now();
  // The next process stops with the test, whatever its end (a process left running would step
  // the next test's rows itself).
  live.push(b.child);
  await sim.control.receiver(b.base);
  await until('the order taken over as sent', row, (r) => r?.state === 'sent', 90_000);
  const tookOver = Date.now();
  // Separates a takeover once the holder is seen gone (the next process's start) from one when the 85 s lease lapses.
  assert.ok(tookOver < leaseEnd, `taken over ${tookOver - started} ms after the next process started, ${tookOver - leaseEnd} ms after the dead one's lease ended: not before it`);
  const state = await sim.state();
  assert.equal(state.orders.filter((o) => o.claveRastreo === clave).length, 1, 'one order at STP');
  assert.equal(state.requests.filter((r) => r.path.endsWith('/ordenPago/registra') && r.claveRastreo === clave).length, 1, 'never sent again');
  return { b, clave };
}

test('a payout order held by a killed process is taken over by the next one before the lease lapses, and sent once', { skip, timeout: 180_000 }, async () => {
  const sim = bench.sim();
  const a = await bench.start(SLOW_MS);
  const ops = await bench.reach(a.base);
  assert.equal((await admin(a.base, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
  await setRates(ops, { MXN: '18.00' });
  const m = await createMerchant(a.base, 'Dead holder payouts');
  await fundMerchant(ops, m.merchant_id, '100.00', 'USD', 'funding');
  await sim.control.registraHang(1);
  const created = await cashoutRequest(a.base, m, 'POST', '/v3/cashout', {
    country: 'MX', currency: 'MXN', amount: '360.00', document_id: 'GODE561231GR8', beneficiary_name: 'Eva', beneficiary_lastname: 'Gómez',
    bank_code: '12', bank_account: buildClabe('012', '180', '00123456789'), account_type: 'C', external_id: `dead-${Date.now()}`,
  });
  assert.equal(created.status, 200, created.text);
  const cashoutId = created.body.cashout_id as number;
  const { b, clave } = await killAndTakeOver('connector_payouts', 'cashout_id', cashoutId, a);
  await sim.control.estado(clave, 'LQ');
  await until('COMPLETED', async () => (await cashoutRequest(b.base, m, 'POST', '/v3/cashout/status', { cashout_id: cashoutId })).body.cashout_status, (x) => x === 1, 30_000);
  assert.equal((await admin(b.base, 'GET', '/admin/ledger/check')).status, 200);
});

test('a refund held by a killed process is taken over by the next one before the lease lapses, and sent once', { skip, timeout: 180_000 }, async () => {
  const sim = bench.sim();
  const a = await bench.start(SLOW_MS);
  await sim.control.receiver(a.base);
  const m = await createMerchant(a.base, 'Dead holder refunds');
  const v3a = V3Client.deposits(a.base, m);
  const d = await v3a.post('/v3/deposits', { country: 'MX', amount: '250.00', currency: 'MXN', payment_method: 'SE', invoice_id: `dead-${Date.now()}`, payer: { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' } });
  assert.equal(d.status, 200, d.text);
  const paid = await sim.control.abono({ cuentaBeneficiario: d.body.payment_info.metadata.account, monto: Number(d.body.payment_info.amount) });
  assert.deepEqual(paid.answers[0]!.answer, { mensaje: 'confirmar' });
  await sim.control.registraHang(1);
  const r = await v3a.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '100.00' });
  assert.equal(r.status, 200, r.text);
  const refundId = r.body.refund_id as number;
  const { b, clave } = await killAndTakeOver('connector_refunds', 'refund_id', refundId, a);
  await sim.control.estado(clave, 'LQ');
  const v3b = V3Client.deposits(b.base, m);
  await until('COMPLETED', async () => (await v3b.get(`/v3/refunds/${refundId}`)).body.status, (x) => x === 'COMPLETED', 30_000);
  assert.equal((await admin(b.base, 'GET', '/admin/ledger/check')).status, 200);
});
