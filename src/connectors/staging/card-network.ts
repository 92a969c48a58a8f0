// Card refunds go back through the card network that captured the deposit (STYLE.md "Providers
// behind one interface"). Staging ships a simulator; production has no card connector until one
// is plugged in (src/connectors/registry.ts chooses, the one place that reads CAJA_ENV for
// providers), and then a card refund is refused rather than answered SUCCESS without any
// provider being asked.
import type { RefundStatus } from '../../domain/refund-rules.ts';
import { type Decimal, toFixed } from '../../domain/money.ts';

export interface CardRefundOrder {
  refundId: number;
  depositId: number;
  amount: Decimal;
  currency: string;
  /** The refund's reference at the network: random, stored with the refund before the first request. */
  reference: string;
}

export interface CardRefundOutcome {
  status: Extract<RefundStatus, 'COMPLETED' | 'REJECTED' | 'PENDING'>;
  reason?: string;
  reasonCode?: string;
}

/**
 * A card network. Called outside any database transaction, with the send-once rule of every
 * provider request (the send-once primitive, src/jobs/send-once.ts): the reference is stored first, and a refund whose
 * request may have reached the network (timeout, crash) is looked up by it (`status`) before any
 * resend.
 */
export interface CardRefundConnector {
  readonly name: string;
  /** Asks the network to refund. Throws (ConnectorError) when the answer is unknown. */
  refund(order: CardRefundOrder): Promise<CardRefundOutcome>;
  /** The network's answer for a refund by its reference; null when the network never received it. */
  status(order: CardRefundOrder): Promise<CardRefundOutcome | null>;
}

/** The staging network's answer: a card refund whose amount ends in .03 is rejected (insufficient funds). */
function stagingAnswer(order: CardRefundOrder): CardRefundOutcome {
  if (toFixed(order.amount, 2).endsWith('.03')) {
    return { status: 'REJECTED', reason: 'The card issuer refused the refund: insufficient funds', reasonCode: 'INSUFFICIENT_FUNDS' };
  }
  return { status: 'COMPLETED' };
}

/** The refunds the staging network received in this process, by reference (what `status` answers). */
const stagingReceived = new Map<string, CardRefundOutcome>();

/** Staging's simulated network: settles at once; magic value .03 rejected. */
export const stagingCardNetwork: CardRefundConnector = {
  name: 'staging card simulator',
  async refund(order) {
    const answer = stagingReceived.get(order.reference) ?? stagingAnswer(order);
    if (stagingReceived.size >= 100_000) stagingReceived.delete(stagingReceived.keys().next().value!);
    stagingReceived.set(order.reference, answer);
    return answer;
  },
  async status(order) {
    return stagingReceived.get(order.reference) ?? null;
  },
};
