// The connectors worker, in every process: registers each real connector's callback address at
// its provider (on start, and again when the configuration changes) and follows configuration
// changes other processes save. It runs every CAJA_EXPIRY_INTERVAL_MS. What the providers are
// asked about money runs in the features' own workers, through the connectors' interfaces:
// the reconciliation poll and the send-backs in deposits' (src/deposits/payments-worker.ts),
// refunds in refunds' (src/refunds/worker.ts), payout orders in cashouts' (src/cashouts/worker.ts).
import type { AppContext } from '../config/context.ts';
import { periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import type { PayinConnector } from './payin.ts';
import { configuredConnectors, followConnectorChanges } from './registry.ts';
import { callbackUrl } from './pix/view.ts';

export { callbackUrl };

/** One pass; tests call it directly. `registered` keeps the connectors registered by this process. */
export async function runConnectorJobs(ctx: AppContext, registered: WeakSet<PayinConnector> = new WeakSet()): Promise<void> {
  for (const connector of await configuredConnectors(ctx)) {
    if (!connector.registerCallback || registered.has(connector)) continue;
    try {
      await connector.registerCallback(callbackUrl(ctx, connector.name));
      registered.add(connector);
    } catch (err) {
      ctx.log.warn({ err, connector: connector.name }, 'callback registration failed; retried next pass');
    }
  }
}

export function connectorWorker(ctx: AppContext): Worker {
  const registered = new WeakSet<PayinConnector>();
  const worker = periodicWorker(ctx, 'connectors', ctx.config.expiryIntervalMs, () => runConnectorJobs(ctx, registered));
  // A configuration saved by another process: this one's cached copy goes at once.
  const following = followConnectorChanges(ctx).catch((err) => {
    ctx.log.warn({ err }, 'could not listen for connector changes; other processes\' changes are seen within CAJA_CACHE_SECONDS');
    return async () => undefined;
  });
  return {
    name: worker.name,
    async stop() {
      await worker.stop();
      await (await following)();
    },
  };
}
