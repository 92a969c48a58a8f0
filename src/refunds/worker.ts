// The refunds worker, in every process: every CAJA_EXPIRY_INTERVAL_MS it steps the refunds sent
// through a provider until they settle (src/refunds/provider-refunds.ts, the send-once
// primitive): first those waiting on a provider that answered its reconciliation poll since their
// step failed are made due, then every refund due is stepped, a batch at a time.
import type { AppContext } from '../config/context.ts';
import { periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { trackConnectorRefunds, wakeRefundsAfterPolls } from './provider-refunds.ts';

const BATCH = 50;

/** One pass; tests call it directly. */
export async function runRefundJobs(ctx: AppContext): Promise<void> {
  await wakeRefundsAfterPolls(ctx);
  while ((await trackConnectorRefunds(ctx, BATCH)) === BATCH);
}

export function refundWorker(ctx: AppContext): Worker {
  return periodicWorker(ctx, 'refunds', ctx.config.expiryIntervalMs, () => runRefundJobs(ctx));
}
