// When work waiting on a provider (payout orders, refunds) may be probed early (issue 45's
// recovery): at most once a second per process and per kind of work and provider, whatever the
// pass interval. One place for both senders (src/cashouts/payouts.ts, src/refunds/provider-refunds.ts).
import type { AppContext } from '../config/context.ts';

/** How often one process may probe one provider for one kind of work. */
export const PROBE_MS = 1000;

const lastProbe = new WeakMap<object, Map<string, number>>();

/** Whether this process may probe `connector` for `work` now (and notes that it does). */
export function probeDue(ctx: Pick<AppContext, 'db'>, work: 'payouts' | 'refunds' | 'send-backs', connector: string): boolean {
  let perDb = lastProbe.get(ctx.db);
  if (!perDb) lastProbe.set(ctx.db, (perDb = new Map()));
  const key = `${work}:${connector}`;
  const now = Date.now();
  if (now - (perDb.get(key) ?? 0) < PROBE_MS) return false;
  perDb.set(key, now);
  return true;
}
