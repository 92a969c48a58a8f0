// The payments worker, in every process: every CAJA_EXPIRY_INTERVAL_MS it runs each configured
// connector's reconciliation poll when due (src/deposits/payments.ts reconcile, through the
// connector's `paymentsBetween`; every kind's `intervals.poll`: Pix CAJA_PIX_POLL_SECONDS, STP
// CAJA_STP_POLL_SECONDS; one process at a time), and sends back the payments the payer rule
// refused (src/deposits/send-backs.ts, the send-once primitive). A poll the provider answered is
// recorded in the connector's health, which the refunds' and cashouts' workers read to wake
// what waits on that provider.
import type { AppContext } from '../config/context.ts';
import { periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { configuredConnectors, connectorKind } from '../connectors/registry.ts';
import { pollSeconds } from '../connectors/kind.ts';
import { reconcile } from './payments.ts';
import { runSendBacks } from './send-backs.ts';

/** One pass; tests call it directly. */
export async function runPaymentJobs(ctx: AppContext): Promise<void> {
  for (const connector of await configuredConnectors(ctx)) {
    try {
      await reconcile(ctx, connector, pollSeconds(ctx.config, connectorKind(connector.name)));
    } catch (err) {
      ctx.log.warn({ err, connector: connector.name }, 'reconciliation poll failed; retried next pass');
    }
  }
  await runSendBacks(ctx);
}

export function paymentsWorker(ctx: AppContext): Worker {
  return periodicWorker(ctx, 'payments', ctx.config.expiryIntervalMs, () => runPaymentJobs(ctx));
}
