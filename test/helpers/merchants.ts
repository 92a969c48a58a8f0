// The fixture most API, cashout and panel test files begin with: a test server and merchants
// created through the admin API as an operator would, their balance credited through it when the
// test moves money out (cashouts, refunds).
import assert from 'node:assert/strict';
import { admin, createMerchant, type Credentials } from './clients.ts';
import { type Backend, startTestServer, type TestServer } from './server.ts';

/** Credits `amount` to the merchant's balance with an operator's adjustment (POST /admin/merchants/{id}/balance_adjustments). */
export async function creditBalance(base: string, m: Credentials, amount: string, currency = 'USD', reason = 'test funding'): Promise<void> {
  const r = await admin(base, 'POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'credit', amount, currency, reason });
  assert.equal(r.status, 201, r.text);
}

export interface MerchantSpec {
  name: string;
  /** More fields of POST /admin/merchants (notification_url, return_url, …). */
  extra?: Record<string, unknown>;
  /** USD credited to the new merchant's balance. */
  funds?: string;
}

/** Starts a test server (startTestServer's arguments) and creates the merchants, in order. */
export async function startWithMerchants<const T extends readonly MerchantSpec[]>(
  backend: Backend,
  env: Record<string, string>,
  merchants: T,
  opts: { workers?: boolean } = {},
): Promise<{ s: TestServer; merchants: { [K in keyof T]: Credentials } }> {
  const s = await startTestServer(backend, env, opts);
  const made: Credentials[] = [];
  for (const spec of merchants) {
    const m = await createMerchant(s.url, spec.name, spec.extra);
    if (spec.funds) await creditBalance(s.url, m, spec.funds);
    made.push(m);
  }
  return { s, merchants: made as { [K in keyof T]: Credentials } };
}
