// Which provider makes a refund, decided in the refund's creating transaction from what is stored
// (the deposit's connector, the payment that completed it), without loading any connector's
// configuration: a refund no provider can make is refused there, before anything is reserved.
//   card deposits        the card network (CARD_NETWORK), with a random reference
//   Pix (the PSP)        a devolução of the payment, with a random devolução id
//   SPEI (STP)           an order back to the abono's ordering account, with a random claveRastreo
//   Adyen (cards)        a refund of the payment's pspReference; boleto and OXXO are refused
//   anything else        no provider: staging waits for its sandbox, production refuses
import { newReference } from '../domain/references.ts';
import { PIX_CONNECTOR } from './pix/connector.ts';
import { newDevolucaoId } from './pix/mapping.ts';
import { STP_CONNECTOR } from './stp/connector.ts';
import { ADYEN_CONNECTOR } from './adyen/connector.ts';
import { refundClaveRastreo, speiRefundDestination } from './stp/refund-mapping.ts';

/** connector_refunds.connector of a card refund (sent to the card network, not a pay-in connector). */
export const CARD_NETWORK = 'card';

/** The pay-in connectors that send refunds to their provider. */
const REFUNDING = new Set([PIX_CONNECTOR, STP_CONNECTOR, ADYEN_CONNECTOR]);

export function refundsThroughConnector(connector: string): boolean {
  return REFUNDING.has(connector);
}

/**
 * Where a refund of a payment received through `connector` goes: the destination stored with
 * the refund (STP: the ordering account; Pix: none, the devolução names the payment), or why
 * the provider cannot send it there.
 */
export function refundDestination(connector: string, raw: unknown): { ok: true; destination: unknown } | { ok: false; reason: string } {
  if (connector === ADYEN_CONNECTOR) {
    // Adyen refunds cards only: a boleto or an OXXO voucher paid in cash has nothing to refund to.
    const method = (raw as { paymentMethod?: unknown } | null)?.paymentMethod;
    return method === 'boletobancario' || method === 'oxxo'
      ? { ok: false, reason: `Adyen does not refund ${method === 'oxxo' ? 'OXXO' : 'boleto'} payments; refund the customer another way (a cashout)` }
      : { ok: true, destination: null };
  }
  if (connector !== STP_CONNECTOR) return { ok: true, destination: null };
  const d = speiRefundDestination(raw);
  return d.ok ? { ok: true, destination: d.destination } : d;
}

/**
 * The refund's reference at its provider: random (src/domain/references.ts), never derived from
 * the refund id, which a restored database gives again; stored with the connector_refunds row in
 * the refund's transaction, before the first request; every resend and look-up reads it back.
 */
export function refundReference(connector: string): string {
  if (connector === CARD_NETWORK) return newReference('CAJAC', 24);
  if (connector === STP_CONNECTOR) return refundClaveRastreo();
  if (connector === PIX_CONNECTOR) return newDevolucaoId();
  return newReference('refund', 32);
}
