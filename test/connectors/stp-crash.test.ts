// A caja process really killed (SIGKILL) between signing an STP order and STP's answer: STP
// registered the order, the process never heard back. Another process on the same PostgreSQL
// takes the cashout over once the dead one's lease lapses, finds the order at STP by its
// claveRastreo, and sends nothing more: one order, one payout. caja runs as the compiled server
// (dist/main.mjs), STP as its simulator; both are separate processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, cashoutRequest, createMerchant } from '../helpers/clients.ts';
import { buildClabe } from '../../src/domain/clabe.ts';
import { stpCrashBench, until } from '../helpers/stp-crash-bench.ts';
import { fundMerchant, setRates } from '../helpers/four-eyes.ts';

const bench = stpCrashBench('caja_stp_crash', { CAJA_CASHOUT_DELAY_SECONDS: '0' });
const { skip } = bench;

test('SIGKILL between signing and STP\'s answer: the next process finds the order and never sends a second one', { skip, timeout: 180_000 }, async () => {
  // The first process waits up to 5 s for STP (its lease on the order: 2 × 5 s + 5 s).
  const sim = bench.sim();
  const a = await bench.start(5000);
  // The second operator who approves the rate (and the funding) production asks for.
  const ops = await bench.reach(a.base);
  assert.equal((await admin(a.base, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
  await setRates(ops, { MXN: '18.00' });
  const m = await createMerchant(a.base, 'Crash shop');
  await fundMerchant(ops, m.merchant_id, '100.00', 'USD', 'funding');
  await sim.control.registraHang(1);
  const created = await cashoutRequest(a.base, m, 'POST', '/v3/cashout', {
    country: 'MX', currency: 'MXN', amount: '360.00', document_id: 'GODE561231GR8', beneficiary_name: 'Eva', beneficiary_lastname: 'Gómez',
    bank_code: '12', bank_account: buildClabe('012', '180', '00123456789'), account_type: 'C', external_id: `crash-${Date.now()}`,
  });
  assert.equal(created.status, 200, created.text);
  const cashoutId = created.body.cashout_id as number;

  const client = await bench.client();
  const row = async () => (await client.query<{ reference: string; state: string }>('SELECT reference, state FROM connector_payouts WHERE cashout_id = $1', [cashoutId])).rows[0];
  // STP registered the order and keeps the answer; the process is waiting for it.
  const sending = await until('the order registered at STP, unanswered', async () => ({ row: await row(), state: await sim.state() }),
    (v) => v.row?.state === 'sending' && v.state.requests.some((r) => r.claveRastreo === v.row!.reference && r.status === null));
  const clave = sending.row!.reference;
  a.child.kill('SIGKILL');
  await new Promise((r) => a.child.once('exit', r));

  const b = await bench.start(1500);
  await sim.control.receiver(b.base);
  // Once the dead process's lease lapses, the new one looks the order up and finds it.
  await until('the order taken over as sent', row, (r) => r?.state === 'sent', 90_000);
  const state = await sim.state();
  assert.equal(state.orders.filter((o) => o.claveRastreo === clave).length, 1, 'one order at STP');
  assert.equal(state.requests.filter((r) => r.path.endsWith('/ordenPago/registra') && r.claveRastreo === clave).length, 1, 'never sent again');
  assert.equal(state.signatureFailures, 0);

  // The new process's worker looks the order up every second too: the state change is applied by
  // the post or by the look-up, whichever takes the row first, once.
  await sim.control.estado(clave, 'LQ');
  await until('COMPLETED', async () => (await cashoutRequest(b.base, m, 'POST', '/v3/cashout/status', { cashout_id: cashoutId })).body.cashout_status, (x) => x === 1, 30_000);
  const completions = await client.query(`SELECT 1 FROM cashout_status_changes WHERE cashout_id = $1 AND to_status = 'COMPLETED'`, [cashoutId]);
  assert.equal(completions.rows.length, 1);
  assert.equal((await admin(b.base, 'GET', '/admin/ledger/check')).status, 200);
});
