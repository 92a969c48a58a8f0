// The provider's reference of a refund sent through a connector (Pix: the devolução id): random
// (src/domain/references.ts), never derived from the refund id, which a restored database gives
// again. The refund service stores it with the connector_refunds row in the refund's transaction,
// before the provider is first asked; every resend and look-up reads it back from the row.
import { newReference } from '../domain/references.ts';
import { PIX_CONNECTOR } from './pix/connector.ts';
import { newDevolucaoId } from './pix/mapping.ts';

export function connectorRefundReference(connector: string): string {
  return connector === PIX_CONNECTOR ? newDevolucaoId() : newReference('refund', 32);
}
