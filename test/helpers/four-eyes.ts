// Production moves no merchant money by hand on one person's word (docs/operators.md, "Four
// eyes"): a balance adjustment or a manual exchange rate asked through the admin API answers 202
// and waits for a second operator. Tests of other things (connectors, refunds, cashouts) that need
// a funded merchant or a rate in production go through that same door: the admin API asks, and an
// operator of the console (made once per server and enrolled through their link, signed in with
// password and code) approves on the Approvals page. Staging applies at once and needs none of it.
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/config.ts';
import type { AppContext } from '../../src/config/context.ts';
import { openContext } from '../../src/server/runtime.ts';
import { makeOperator, type OpsClient, signedIn } from '../ops/helpers.ts';
import { admin, type Res } from './clients.ts';
import type { TestServer } from './server.ts';

/** A server the test reaches (its URL) and a context on its database (its ctx, or one opened on the same database and master key). */
export type Reachable = Pick<TestServer, 'url' | 'ctx'>;

const approvers = new WeakMap<AppContext, Promise<OpsClient>>();

function approver(s: Reachable): Promise<OpsClient> {
  let c = approvers.get(s.ctx);
  if (!c) {
    c = makeOperator(s as TestServer, 'finance', 'approver').then((op) => signedIn(s as TestServer, op));
    approvers.set(s.ctx, c);
  }
  return c;
}

/** A second operator approves request `id` on the console's Approvals page. */
export async function approveRequest(s: Reachable, id: number): Promise<void> {
  const page = await (await approver(s)).submit('/ops/approvals', `/ops/approvals/${id}/approve`);
  assert.equal(page.url, '/ops/approvals?done=approve', `approval ${id}: ${page.status} ${page.html.slice(0, 300)}`);
}

/**
 * An admin API call that moves money by hand: applied at once in staging (its 2xx answered); in
 * production answered 202 with its request(s), each then approved by a second operator. Answers
 * the admin API's own answer.
 */
export async function adminApproved(s: Reachable, method: string, path: string, body?: unknown): Promise<Res> {
  const r = await admin(s.url, method, path, body);
  assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  if (r.status !== 202) return r;
  const ids: number[] = r.body.approval_id !== undefined ? [r.body.approval_id] : (r.body.pending ?? []).map((p: { approval_id: number }) => p.approval_id);
  assert.ok(ids.length > 0, `202 without a request: ${r.text}`);
  for (const id of ids) await approveRequest(s, id);
  return r;
}

/** Sets manual exchange rates (`PUT /admin/exchange_rates`), approved by a second operator where production asks for one. */
export async function setRates(s: Reachable, rates: Record<string, string>): Promise<void> {
  await adminApproved(s, 'PUT', '/admin/exchange_rates', { rates });
}

/** Credits a merchant's balance (`POST /admin/merchants/{id}/balance_adjustments`), approved by a second operator where production asks for one. */
export async function fundMerchant(s: Reachable, merchantId: number, amount: string, currency = 'USD', reason = 'test funding'): Promise<void> {
  await adminApproved(s, 'POST', `/admin/merchants/${merchantId}/balance_adjustments`, { direction: 'credit', amount, currency, reason });
}

/**
 * A caja started as a process (its URL), and a context of this test's on the same PostgreSQL
 * database and master key, through which its approver is made. `close` ends that context.
 */
export async function beside(url: string, env: Record<string, string | undefined>): Promise<Reachable & { close(): Promise<void> }> {
  const ctx = await openContext(loadConfig(env));
  return { url, ctx, close: () => ctx.db.close() };
}
