// A caja process really killed (SIGKILL) between sending a Pix (Efí's PUT /gn/pix/{idEnvio}) and
// the PSP's answer: the PSP registered the send, the process never heard back. Another process on
// the same PostgreSQL takes the cashout over once the dead one's lease lapses, finds the send by
// its idEnvio, and sends nothing more: one send, one payout. caja runs as the compiled server
// (dist/main.mjs), the PSP as the Pix simulator; both are separate processes. (The bench also
// starts an STP simulator, unused here.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { admin, cashoutRequest, createMerchant } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { stpCrashBench, until } from '../helpers/stp-crash-bench.ts';
import { fundMerchant, setRates } from '../helpers/four-eyes.ts';

const bench = stpCrashBench('caja_pix_crash', { CAJA_CASHOUT_DELAY_SECONDS: '0' });
const { skip } = bench;
let sim: PixSimulator | undefined;
before(async () => {
  if (!skip) sim = await startPixSimulator({ webhookRetries: 0 });
});
after(async () => {
  await sim?.stop();
});

test('SIGKILL between the Pix send and the PSP\'s answer: the next process finds the send by its idEnvio and never sends a second one', { skip, timeout: 180_000 }, async () => {
  // The first process waits up to 5 s for the PSP (its lease on the send: 2 × 5 s + 5 s).
  const a = await bench.start(5000);
  const ops = await bench.reach(a.base);
  const configured = await admin(a.base, 'PUT', '/admin/connectors/pix', { ...sim!.config, payouts: { max_amount: '1000.00', check_seconds: 1 } });
  assert.equal(configured.status, 200, configured.text);
  await setRates(ops, { BRL: '5.00' });
  const m = await createMerchant(a.base, 'Crash shop');
  await fundMerchant(ops, m.merchant_id, '100.00', 'USD', 'funding');
  await sim!.control.sendMood({ hang: 1 });
  const created = await cashoutRequest(a.base, m, 'POST', '/v3/cashout', {
    country: 'BR', currency: 'BRL', amount: '20.00', document_id: cpf('529982247'), beneficiary_name: 'Maria', beneficiary_lastname: 'Souza',
    bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C', external_id: `pix-crash-${Date.now()}`,
  });
  assert.equal(created.status, 200, created.text);
  const cashoutId = created.body.cashout_id as number;

  const client = await bench.client();
  const row = async () => (await client.query<{ reference: string; state: string }>('SELECT reference, state FROM connector_payouts WHERE cashout_id = $1', [cashoutId])).rows[0];
  // The PSP registered the send and keeps the answer; the process is waiting for it.
  const sending = await until('the send registered at the PSP, unanswered', async () => ({ row: await row(), sends: await sim!.control.sends() }),
    (v) => v.row?.state === 'sending' && v.sends.some((x) => x.idEnvio === v.row!.reference));
  const idEnvio = sending.row!.reference;
  a.child.kill('SIGKILL');
  await new Promise((r) => a.child.once('exit', r));

  const b = await bench.start(1500);
  // Once the dead process's lease lapses, the new one looks the send up, finds it made, and completes the cashout.
  await until('COMPLETED', async () => (await cashoutRequest(b.base, m, 'POST', '/v3/cashout/status', { cashout_id: cashoutId })).body.cashout_status, (x) => x === 1, 90_000);
  const sends = (await sim!.control.sends()).filter((x) => x.idEnvio === idEnvio);
  assert.equal(sends.length, 1, 'one send at the PSP');
  assert.equal(sends[0].puts, 1, 'never sent again');
  const completions = await client.query(`SELECT 1 FROM cashout_status_changes WHERE cashout_id = $1 AND to_status = 'COMPLETED'`, [cashoutId]);
  assert.equal(completions.rows.length, 1);
  const ref = await client.query<{ bank_reference_id: string }>('SELECT bank_reference_id FROM cashouts WHERE id = $1', [cashoutId]);
  assert.equal(ref.rows[0]!.bank_reference_id, sends[0].endToEndId);
  assert.equal((await admin(b.base, 'GET', '/admin/ledger/check')).status, 200);
});
