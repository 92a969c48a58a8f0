// Card refunds go back through the card network that captured the deposit (STYLE.md "Providers
// behind one interface"). Staging ships a simulator; production has no card connector until one
// is plugged in (src/connectors/registry.ts chooses, the one place that reads CAJA_ENV for
// providers), and then a card refund is refused rather than answered SUCCESS without any
// provider being asked.
import type { RefundStatus } from '../domain/refund-rules.ts';
import { type Decimal, toFixed } from '../domain/money.ts';

export interface CardRefundOrder {
  refundId: number;
  depositId: number;
  amount: Decimal;
  currency: string;
}

export interface CardRefundOutcome {
  status: Extract<RefundStatus, 'COMPLETED' | 'REJECTED' | 'PENDING'>;
  reason?: string;
  reasonCode?: string;
}

export interface CardRefundConnector {
  readonly name: string;
  refund(order: CardRefundOrder): Promise<CardRefundOutcome>;
}

/** Staging magic value: a card refund whose amount ends in .03 is rejected (insufficient funds). */
export const stagingCardNetwork: CardRefundConnector = {
  name: 'staging card simulator',
  async refund(order) {
    if (toFixed(order.amount, 2).endsWith('.03')) {
      return { status: 'REJECTED', reason: 'The card issuer refused the refund: insufficient funds', reasonCode: 'INSUFFICIENT_FUNDS' };
    }
    return { status: 'COMPLETED' };
  },
};

export { cardRefundConnector } from '../connectors/registry.ts';
