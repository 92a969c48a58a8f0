// The provider's reference of a refund sent through a connector, derived from the refund id (a
// resend after a crash names the same refund). Kept apart from the connectors themselves so the
// refund service can name it inside its transaction without loading any configuration.
import { PIX_CONNECTOR } from './pix/connector.ts';
import { devolucaoIdFor } from './pix/mapping.ts';

export function connectorRefundReference(connector: string, refundId: number): string {
  return connector === PIX_CONNECTOR ? devolucaoIdFor(refundId) : `refund${refundId}`;
}
