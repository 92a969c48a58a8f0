// Creating a charge through a connector, with the provider's failures turned into the errors the
// faces render (v3 520/521, streamline its own; src/http/errors.ts).
import { ApiError, v3Errors } from '../http/errors.ts';
import { type Charge, type ChargeOrder, ConnectorError, type PayinConnector } from './payin.ts';

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
