// The fixture of the panel's HTTP tests (panel.test.ts: sign-in and sessions; panel-money.test.ts:
// roles, escaping, money and exports): a test server with two funded merchants, the first named
// with markup, made before a file's tests on each backend. Its bindings (s, a, b) are live: they
// name the server and merchants of the backend whose tests run now.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { cashoutRequest, type Credentials } from '../helpers/clients.ts';
import type { Backend, TestServer } from '../helpers/server.ts';
import { startWithMerchants } from '../helpers/merchants.ts';
import { cpf } from '../helpers/documents.ts';
import { PanelClient } from './helpers.ts';

export const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';
export const BR_CASHOUT = (over: Record<string, unknown> = {}) => ({
  country: 'BR', currency: 'USD', amount: '10.00', document_id: cpf('529982247'), beneficiary_name: 'Maria', beneficiary_lastname: 'Souza',
  bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C', ...over,
});

export let s: TestServer;
export let a: Credentials;
export let b: Credentials;
let n = 0;

/** Registers, in the describe calling it, the server and merchants its tests use. */
export function panelServer(backend: Backend): void {
  before(async () => {
    ({ s, merchants: [a, b] } = await startWithMerchants(backend, { CAJA_CASHOUT_DELAY_SECONDS: '600' }, [
      { name: `Tienda ${XSS}`, funds: '1000.00' },
      { name: 'Other shop', funds: '1000.00' },
    ]));
  });
  after(() => s.close());
}

/** A fresh external_id. */
export const ext = () => `p-${s.backend}-${++n}-${Date.now()}`;

/** The merchant's owner signed in to the panel. */
export async function owner(m: Credentials = a): Promise<PanelClient> {
  const c = new PanelClient(s.url);
  const p = await c.signIn(m.panel.email, m.panel.password);
  assert.equal(p.status, 200, p.html.slice(0, 500));
  assert.equal(p.url, '/panel');
  return c;
}

/** A BR cashout created through the API; its id. */
export async function cashout(m: Credentials, over: Record<string, unknown> = {}): Promise<number> {
  const r = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR_CASHOUT({ external_id: ext(), ...over }));
  assert.equal(r.status, 200, r.text);
  return r.body.cashout_id as number;
}

export const cashoutStatus = async (m: Credentials, id: number) => (await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id: id })).body.cashout_status_description;
