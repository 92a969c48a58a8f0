// The connectors worker, in every process: registers each real connector's callback address at
// its provider (on start, and again when the configuration changes), runs the reconciliation
// poll when due (every kind's `intervals.poll`: Pix CAJA_PIX_POLL_SECONDS, STP CAJA_STP_POLL_SECONDS; one process at a time), and moves refunds
// sent through connectors along (src/refunds/provider-refunds.ts). It runs every CAJA_EXPIRY_INTERVAL_MS,
// like the deposit worker.
import type { AppContext } from '../config/context.ts';
import { periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import type { PayinConnector } from './payin.ts';
import { reconcile } from '../deposits/payments.ts';
import { providerAnsweredForRefunds, trackConnectorRefunds } from '../refunds/provider-refunds.ts';
import { providerAnsweredForPayouts } from '../cashouts/payouts.ts';
import { connectorKind, configuredConnectors, followConnectorChanges } from './registry.ts';
import { pollSeconds } from './kind.ts';
import { callbackUrl } from './pix/view.ts';

export { callbackUrl };


/** One pass; tests call it directly. `registered` keeps the connectors registered by this process. */
export async function runConnectorJobs(ctx: AppContext, registered: WeakSet<PayinConnector> = new WeakSet()): Promise<void> {
  for (const connector of await configuredConnectors(ctx)) {
    if (connector.registerCallback && !registered.has(connector)) {
      try {
        await connector.registerCallback(callbackUrl(ctx, connector.name));
        registered.add(connector);
      } catch (err) {
        ctx.log.warn({ err, connector: connector.name }, 'callback registration failed; retried next pass');
      }
    }
    try {
      const poll = await reconcile(ctx, connector, pollSeconds(ctx.config, connectorKind(connector.name)));
      if (poll.ran) {
        // The provider answered: refunds and orders waiting on it go at their next pass.
        await providerAnsweredForRefunds(ctx, connector.name);
        await providerAnsweredForPayouts(ctx, connector.name);
      }
    } catch (err) {
      ctx.log.warn({ err, connector: connector.name }, 'reconciliation poll failed; retried next pass');
    }
  }
  while ((await trackConnectorRefunds(ctx)) === 50);
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
