// What the Adyen connector's test files (test/connectors/adyen*.test.ts) share: the Adyen
// simulator as a separate process delivering its notifications to caja, caja in production with
// its workers, BRL and MXN priced, a merchant, and the calls the tests make of them. One per
// backend and file, started in `before`:
//
//   let a: AdyenSuite;
//   before(async () => { a = await startAdyenSuite(backend, { configure: true }); });
//   after(() => a.close());
//   ... const d = await a.cardCheckout('VI'); await a.sim.control.pay(d.sessionId, card); ...
import assert from 'node:assert/strict';
import { startTestServer, type Backend, type TestServer } from './server.ts';
import { admin, createMerchant, V3Client, type Credentials } from './clients.ts';
import { cpf } from './documents.ts';
import { assertLedgerOk } from './ledger.ts';
import { setRates } from './four-eyes.ts';
import { startAdyenSimulator, type AdyenSimulator } from './adyen-simulator.ts';

export const BR_PAYER = { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', document: cpf('529982247'), address: { street: 'Av. Paulista 1000', city: 'São Paulo', state: 'SP', zip_code: '01310-100' } };
export const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Luis', last_name: 'Pérez', email: 'luis@example.com' };

type Deposit = { id: number; invoice: string; body: any; token: string };

export interface AdyenSuite {
  sim: AdyenSimulator;
  s: TestServer;
  m: Credentials;
  v3: V3Client;
  status(id: number): Promise<string>;
  row(id: number): Promise<{ connector: string; connector_reference: string; card_detail: any; payment_info: any }>;
  /** How many times the deposit was COMPLETED (its status changes). */
  completions(id: number): Promise<number>;
  payments(ref: string): Promise<Array<{ payment_id: string; seen_via: string; status: string }>>;
  /** A v3 deposit of `method` in BR (BRL) or MX (MXN), each with an invoice id of its own. */
  deposit(country: 'BR' | 'MX', method: string, amount?: string, extra?: Record<string, unknown>): Promise<Deposit>;
  /** A card deposit's checkout: caja creates the session and sends the customer to Adyen's hosted page. */
  cardCheckout(method?: string, country?: 'BR' | 'MX', amount?: string, extra?: Record<string, unknown>): Promise<Deposit & { hosted: string; sessionId: string; ref: string }>;
  /** The customer's browser coming back from Adyen to caja's return leg: its status. */
  comeBack(url: string): Promise<number>;
  /** The ledger checked, the server closed, the simulator stopped. */
  close(): Promise<void>;
}

/** `configure`: the connector is PUT with the simulator's configuration (BR: VI MC BL, MX: VI MC OX). */
export async function startAdyenSuite(backend: Backend, o: { configure: boolean }): Promise<AdyenSuite> {
  const sim = await startAdyenSimulator();
  const s = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500' }, { workers: true }).catch(async (err) => {
    await sim.stop();
    throw err;
  });
  const setUp = async () => {
    await setRates(s, { BRL: '5.00', MXN: '17.00' });
    const m = await createMerchant(s.url, 'Adyen shop');
    await sim.control.receiver(`${s.url}/connectors/adyen/notifications`);
    if (o.configure) {
      const put = await admin(s.url, 'PUT', '/admin/connectors/adyen', sim.config());
      assert.equal(put.status, 200, put.text);
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
  const suite: AdyenSuite = {
    sim, s, m, v3,
    status: async (id) => (await v3.get(`/v3/deposits/${id}`)).body.status as string,
    row: async (id) => (await s.ctx.db.query<{ connector: string; connector_reference: string; card_detail: any; payment_info: any }>(
      'SELECT connector, connector_reference, card_detail, payment_info FROM deposits WHERE id = $1', [id])).rows[0]!,
    completions: async (id) =>
      (await s.ctx.db.query<{ n: number }>(`SELECT count(*)::integer AS n FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'COMPLETED'`, [id])).rows[0]!.n,
    payments: async (ref) => (await s.ctx.db.query<{ payment_id: string; seen_via: string; status: string }>('SELECT payment_id, seen_via, status FROM connector_payments WHERE charge_reference = $1', [ref])).rows,
    async deposit(country, method, amount = '120.00', extra = {}) {
      const invoice = `ad-${backend}-${++n}-${Date.now()}`;
      const r = await v3.post('/v3/deposits', {
        invoice_id: invoice, country, currency: country === 'BR' ? 'BRL' : 'MXN', amount, payment_method: method,
        payer: country === 'BR' ? BR_PAYER : MX_PAYER, ...extra,
      });
      assert.equal(r.status, 200, r.text);
      return { id: r.body.deposit_id as number, invoice, body: r.body, token: typeof r.body.redirect_url === 'string' ? (r.body.redirect_url as string).split('/').pop()! : '' };
    },
    async cardCheckout(method = 'VI', country = 'BR', amount = '120.00', extra = {}) {
      const d = await suite.deposit(country, method, amount, extra);
      const r = await fetch(d.body.redirect_url, { redirect: 'manual' });
      assert.equal(r.status, 303, await r.text());
      const hosted = r.headers.get('location')!;
      assert.ok(hosted.startsWith(sim.info.api_url.replace('/checkout/v71', '/hosted/')), hosted);
      const ref = (await suite.row(d.id)).connector_reference;
      return { ...d, hosted, sessionId: hosted.split('/').pop()!, ref };
    },
    async comeBack(url) {
      assert.ok(url.startsWith(`${s.url}/connectors/adyen/return/`), url);
      const r = await fetch(url, { redirect: 'manual' });
      return r.status;
    },
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
