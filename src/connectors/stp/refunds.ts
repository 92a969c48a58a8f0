// Refunds of SPEI deposits as STP orders (docs/connectors.md, "Refunds of SPEI deposits"): the
// refund's order (ordenPago/registra, signed like a cashout's) goes back to the account the
// abono came from, under the claveRastreo stored with the refund before the first send. The steps
// around it (send once, lease, look-up before any resend, outcome applied once) are
// the send-once primitive's (src/jobs/send-once.ts, declared by src/refunds/provider-refunds.ts), as for Pix devoluções.
//   refund        registra: registered → PENDING (looked up until settled); a claveRastreo STP
//                 already holds → PENDING (the look-up decides whether it is this refund's);
//                 refused for the beneficiary's reasons → REJECTED; STP's trouble or an
//                 unreadable answer → thrown (the row stays 'sending', looked up before a resend)
//   refundStatus  consOrdEnvRastreo, on every operation day the order could carry (its creation
//                 day to today): LQ → COMPLETED; cancelled or returned → REJECTED; an order that is
//                 not this refund's (amount, account, beneficiary) → MISMATCH, never adopted
import { ConnectorError, type RefundOrder, type RefundOutcome } from '../payin.ts';
import type { StpClient } from './client.ts';
import { fechaOperacion, orderOutcome } from './mapping.ts';
import { orderIsRefund, refundOrderBody, type SpeiDestination } from './refund-mapping.ts';
import type { StpSettings } from './settings.ts';

const DAY_MS = 24 * 3600_000;
/** At most this many operation days are searched for one order (a long weekend and then some). */
const MAX_DAYS = 8;

export interface StpRefunds {
  refund(order: RefundOrder): Promise<RefundOutcome>;
  refundStatus(order: RefundOrder): Promise<RefundOutcome | null>;
}

export function stpRefunds(settings: StpSettings, client: StpClient, guarded: <T>(what: string, run: () => Promise<T>) => Promise<T>, now: () => Date): StpRefunds {
  function body(order: RefundOrder) {
    if (!order.reference || !order.destination) throw new ConnectorError('not_configured', `refund ${order.refundId}: no claveRastreo or destination stored`);
    return refundOrderBody({
      empresa: settings.empresa, claveRastreo: order.reference, refundId: order.refundId, amount: order.amount,
      destination: order.destination as SpeiDestination, orderingClabe: settings.ordering_clabe, orderingName: settings.ordering_name, orderingRfc: settings.ordering_rfc,
    });
  }

  /** The operation days an order created at `from` may carry, today first (asked without a date). */
  function days(from: Date | undefined): Array<string | undefined> {
    const today = fechaOperacion(now());
    const out: Array<string | undefined> = [undefined];
    const start = from ? Math.max(from.getTime(), now().getTime() - MAX_DAYS * DAY_MS) : now().getTime();
    const seen = new Set([today]);
    for (let t = start; t < now().getTime() + DAY_MS; t += DAY_MS) {
      const day = fechaOperacion(new Date(Math.min(t, now().getTime())));
      if (!seen.has(day)) {
        seen.add(day);
        out.push(day);
      }
    }
    return out;
  }

  return {
    async refund(order) {
      const b = body(order);
      if (!b.ok) return { status: 'REJECTED', reason: `The refund cannot be sent to the paying account: ${b.reason}`, reasonCode: 'INVALID_ACCOUNT' };
      const result = await guarded('registra', () => client.registra(b.orden));
      switch (result.kind) {
        case 'accepted': return { status: 'PENDING', reference: order.reference, providerId: result.id, providerState: 'registered' };
        case 'exists': return { status: 'PENDING', reference: order.reference };
        case 'rejected': return { status: 'REJECTED', reason: `STP refused the order: ${result.error}`, reasonCode: 'PROVIDER_REFUSED' };
        case 'retry': throw new ConnectorError('unavailable', `registra: ${result.error}`);
        // Unreadable: the order may exist; the row stays 'sending' and is looked up first.
        case 'unreadable': throw new ConnectorError('invalid_response', `registra: ${result.error}`);
      }
    },

    async refundStatus(order) {
      const b = body(order);
      let orden: Record<string, unknown> | null = null;
      for (const day of days(order.createdAt)) {
        orden = await guarded('consOrdEnvRastreo', () => client.sentOrder(order.reference!, day));
        if (orden) break;
      }
      if (!orden) return null;
      const providerId = orden.idEF !== undefined ? String(orden.idEF) : orden.id !== undefined ? String(orden.id) : undefined;
      if (b.ok) {
        const mine = orderIsRefund(orden, b.orden);
        if (!mine.ok) return { status: 'MISMATCH', reason: mine.reason, providerId };
      }
      const outcome = orderOutcome(orden);
      if (!outcome) throw new ConnectorError('invalid_response', `consOrdEnvRastreo ${order.reference}: no estado`);
      const providerState = outcome.estado;
      switch (outcome.kind) {
        case 'processing': return { status: 'PENDING', providerId, providerState };
        case 'liquidated': return { status: 'COMPLETED', providerId, providerState };
        case 'cancelled': return { status: 'REJECTED', reason: `The refund's order was cancelled at STP (${outcome.estado})`, reasonCode: 'CANCELLED', providerId, providerState };
        case 'returned': return { status: 'REJECTED', reason: `The paying bank returned the refund: ${outcome.cause}`, reasonCode: 'RETURNED', providerId, providerState };
      }
    },
  };
}

