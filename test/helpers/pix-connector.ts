// What the API Pix connector's test files (test/connectors/pix*.test.ts) share: the PSP
// simulator as a separate process, caja in production with its workers, BRL priced, a merchant,
// and the calls the tests make of them. One per backend and file, started in `before`:
//
//   let p: PixSuite;
//   before(async () => { p = await startPixSuite(backend, { configure: true }); });
//   after(() => p.close());
//   ... const d = await p.pixDeposit(); await p.sim.control.pay(d.txid); ...
import assert from 'node:assert/strict';
import { startTestServer, type Backend, type TestServer } from './server.ts';
import { admin, createMerchant, V3Client, type Credentials } from './clients.ts';
import { cpf } from './documents.ts';
import { assertLedgerOk } from './ledger.ts';
import { startPixSimulator, type PixSimulator } from './pix-simulator.ts';
import { setRates } from './four-eyes.ts';
import { until } from './until.ts';
import { reconcile } from '../../src/deposits/payments.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';

export interface PixSuite {
  backend: Backend;
  sim: PixSimulator;
  s: TestServer;
  m: Credentials;
  v3: V3Client;
  /** A v3 deposit body for Pix, each with an invoice id of its own. */
  body(extra?: Record<string, unknown>): Record<string, unknown>;
  /** A Pix deposit created through the API: its id, the cob's txid, its payment_info and row. */
  pixDeposit(extra?: Record<string, unknown>): Promise<{ id: number; txid: string; info: any; row: { connector: string; connector_reference: string; payer_amount: string } }>;
  /** A Pix deposit paid at the PSP and COMPLETED through its webhook. */
  paidDeposit(): Promise<{ id: number; txid: string; info: any; row: { connector: string; connector_reference: string; payer_amount: string } }>;
  status(id: number): Promise<string>;
  refundStatus(id: number): Promise<string>;
  /** The devolução id stored with the refund's row (random, before the first PUT). */
  devolucaoId(refundId: number): Promise<string>;
  payments(txid: string): Promise<Array<{ payment_id: string; status: string; seen_via: string }>>;
  /** The ledger checked, the server closed, the simulator stopped. */
  close(): Promise<void>;
}

/**
 * The simulator (30 s tokens, webhooks retried twice 100 ms apart) and a production server whose
 * poll is driven by the tests (reconcile) after the worker's first pass. `configure`: the
 * connector is PUT (the file that tests the configuration itself does it in its test).
 */
export async function startPixSuite(backend: Backend, o: { configure: boolean }): Promise<PixSuite> {
  const sim = await startPixSimulator({ tokenTtl: 30, webhookBackoffMs: 100, webhookRetries: 2 });
  const s = await startTestServer(backend, {
    CAJA_ENV: 'production',
    CAJA_PIX_POLL_SECONDS: '3600',
    CAJA_EXPIRY_INTERVAL_MS: '200',
    CAJA_CONNECTOR_TIMEOUT_MS: '1500',
  }, { workers: true }).catch(async (err) => {
    await sim.stop();
    throw err;
  });
  const setUp = async () => {
    await setRates(s, { BRL: '5.00' });
    const m = await createMerchant(s.url, 'Pix shop');
    if (o.configure) {
      const put = await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config);
      assert.equal(put.status, 200, put.text);
      // The worker's first reconciliation poll (the later ones are driven by the tests); one that
      // failed (the PSP slow on a loaded machine) is made again here, as the tests make the later ones.
      const first = await until('first poll', async () => (await admin(s.url, 'GET', '/admin/connectors/pix')).body.health, (h) => h.last_poll_at != null, 60_000);
      if (first.last_poll_ok !== true) await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
    }
    return m;
  };
  // A set-up that failed leaves no server, workers nor simulator running: the file's process ends.
  const m = await setUp().catch(async (err) => {
    await s.close().catch(() => undefined);
    await sim.stop();
    throw err;
  });
  const v3 = V3Client.deposits(s.url, m);
  let n = 0;
  const suite: PixSuite = {
    backend, sim, s, m, v3,
    body: (extra = {}) => ({
      country: 'BR', amount: '100.00', currency: 'BRL', payment_method: 'IX', invoice_id: `pix-${backend}-${++n}-${Date.now()}`,
      description: 'Order 42',
      payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      ...extra,
    }),
    async pixDeposit(extra = {}) {
      const r = await v3.post('/v3/deposits', suite.body(extra));
      assert.equal(r.status, 200, r.text);
      const { rows } = await s.ctx.db.query<{ connector: string; connector_reference: string; payer_amount: string }>(
        'SELECT connector, connector_reference, payer_amount::text FROM deposits WHERE id = $1', [r.body.deposit_id]);
      return { id: r.body.deposit_id as number, txid: rows[0]!.connector_reference, info: r.body.payment_info, row: rows[0]! };
    },
    async paidDeposit() {
      const d = await suite.pixDeposit();
      await sim.control.pay(d.txid);
      await until('deposit completed', () => suite.status(d.id), (x) => x === 'COMPLETED');
      return d;
    },
    status: async (id) => (await v3.get(`/v3/deposits/${id}`)).body.status as string,
    refundStatus: async (id) => (await v3.get(`/v3/refunds/${id}`)).body.status as string,
    devolucaoId: async (id) => (await s.ctx.db.query<{ reference: string }>('SELECT reference FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!.reference,
    payments: async (txid) =>
      (await s.ctx.db.query<{ payment_id: string; status: string; seen_via: string }>('SELECT payment_id, status, seen_via FROM connector_payments WHERE charge_reference = $1', [txid])).rows,
    async close() {
      try {
        await assertLedgerOk(s.ctx.db);
      } finally {
        await s.close();
        await sim.stop();
      }
    },
  };
  return suite;
}
