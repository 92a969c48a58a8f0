// Card refunds go back through the card network that captured the deposit (STYLE.md "Providers
// behind one interface"). The registry (src/connectors/registry.ts cardRefundConnector) answers
// the network of a kind that declares `refundsCards` (staging's stand-in,
// ./staging/card-network.ts); production has no card network until one is plugged in, and then a
// card refund is refused rather than answered SUCCESS without any provider being asked.
import type { RefundStatus } from '../domain/refund-rules.ts';
import type { Decimal } from '../domain/money.ts';

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
