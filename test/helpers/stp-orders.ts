// What the STP order tests (test/connectors/stp-restore.test.ts, stp-orders.test.ts) share: caja
// in production for the STP simulator, a merchant funded to pay cashouts, cashouts made and
// their orders stepped and read, as the operator and STP see them.
import assert from 'node:assert/strict';
import type { AppContext } from '../../src/config/context.ts';
import { buildClabe } from '../../src/domain/clabe.ts';
import { runCashoutJobs } from '../../src/cashouts/worker.ts';
import { admin, cashoutRequest, createMerchant, type Credentials } from './clients.ts';
import { fundMerchant, type Reachable, setRates } from './four-eyes.ts';
import type { StpSimulator } from './stp-simulator.ts';

export const BENEFICIARY_CLABE = buildClabe('012', '180', '00123456789');
/** A production server's environment for STP: cashouts handed over at once, orders checked every second. */
export const PRODUCTION = { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500', CAJA_CASHOUT_DELAY_SECONDS: '0', CAJA_STP_ORDER_CHECK_SECONDS: '1' };

let seq = 0;
/** A cashout of `amount` MXN to Eva Gómez's CLABE (`over`: other fields); answers its id. */
export async function createCashout(url: string, m: Credentials, amount: string, over: Record<string, unknown> = {}): Promise<number> {
  const r = await cashoutRequest(url, m, 'POST', '/v3/cashout', {
    country: 'MX', currency: 'MXN', amount, document_id: 'GODE561231GR8', beneficiary_name: 'Eva', beneficiary_lastname: 'Gómez',
    bank_code: '12', bank_account: BENEFICIARY_CLABE, account_type: 'C', external_id: `restore-${++seq}-${Date.now()}`, ...over,
  });
  assert.equal(r.status, 200, r.text);
  return r.body.cashout_id as number;
}
export const cashoutStatus = async (url: string, m: Credentials, id: number) => (await cashoutRequest(url, m, 'POST', '/v3/cashout/status', { cashout_id: id })).body.cashout_status as number;
export const payoutRow = async (ctx: AppContext, id: number) => (await ctx.db.query<{ reference: string; state: string; last_error: string | null }>(
  'SELECT reference, state, last_error FROM connector_payouts WHERE cashout_id = $1', [id])).rows[0];
/** Every order step due now (backoffs and check intervals skipped), then the cashout worker's pass. */
export async function pass(ctx: AppContext): Promise<void> {
  await ctx.db.query(`UPDATE connector_payouts SET next_check_at = now() - interval '1 second' WHERE state NOT IN ('done', 'stopped')`);
  await runCashoutJobs(ctx);
}
/** How many times registra was called for the claveRastreo. */
export const registras = (sim: StpSimulator, clave: string) => sim.state().then((st) => st.requests.filter((r) => r.path.endsWith('/ordenPago/registra') && r.claveRastreo === clave).length);
export const ordersAt = (sim: StpSimulator, clave: string) => sim.state().then((st) => st.orders.filter((o) => o.claveRastreo === clave));

/** Sets up a production caja for STP: the connector, a rate, a merchant with 1,000 USD. */
export async function prepare(s: Reachable, sim: StpSimulator, name: string): Promise<Credentials> {
  const url = s.url;
  await sim.control.receiver(url);
  assert.equal((await admin(url, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
  await setRates(s, { MXN: '18.00' });
  const m = await createMerchant(url, name);
  await fundMerchant(s, m.merchant_id, '1000.00', 'USD', 'test funding');
  return m;
}
