// Creating a charge through a connector, with the provider's failures turned into the errors the
// faces render (v3 520/521, streamline its own; src/http/errors.ts).
import type { AppContext } from '../context.ts';
import { ApiError, v3Errors } from '../http/errors.ts';
import { type Charge, type ChargeOrder, ConnectorError, type PayinConnector } from './payin.ts';
import { payinConnectorNamed } from './registry.ts';

export async function chargeOrError(connector: PayinConnector, order: ChargeOrder): Promise<Charge> {
  try {
    return await connector.createCharge(order);
  } catch (err) {
    throw connectorApiError(err, `The ${order.method.name} provider`);
  }
}

/** A ConnectorError as the API error merchants see; anything else unchanged. */
export function connectorApiError(err: unknown, who: string): unknown {
  if (!(err instanceof ConnectorError)) return err;
  if (err.kind === 'refused') {
    const said = [err.provider?.title, err.provider?.detail].filter(Boolean).join(': ');
    return v3Errors.providerRefused(`${who} refused the charge${said ? ` (${said})` : ''}; nothing was created`);
  }
  return v3Errors.providerUnavailable(`${who} is not answering (${err.kind}); nothing was created, retry later`);
}

export function isProviderError(err: unknown): err is ApiError {
  return err instanceof ApiError && (err.code === 520 || err.code === 521);
}

/**
 * After a deposit was cancelled (customer, sandbox): its charge at a real provider is withdrawn
 * so that it can no longer be paid. Best effort: a payment that still arrives is kept as
 * unmatched for the operator (src/connectors/payments.ts). Expired deposits need nothing: their
 * charge expires at the same time.
 */
export async function withdrawCharge(ctx: AppContext, d: { id: number; connector: string | null; connector_reference: string | null }): Promise<void> {
  if (!d.connector || !d.connector_reference) return;
  try {
    const connector = await payinConnectorNamed(ctx, d.connector);
    if (connector && !connector.simulated) await connector.cancelCharge?.(d.connector_reference);
  } catch (err) {
    ctx.log.warn({ err, depositId: d.id, connector: d.connector }, 'the cancelled deposit\'s charge could not be withdrawn at the provider');
  }
}
