// Staging's card refund network: settles a refund at once, magic value .03 rejected
// (docs/refunds.md). A stand-in kind (src/connectors/kind.ts StandInKind) that refunds cards; the
// interface is src/connectors/card-network.ts.
import { toFixed } from '../../domain/money.ts';
import type { CardRefundConnector, CardRefundOrder, CardRefundOutcome } from '../card-network.ts';
import type { StandInKind } from '../kind.ts';

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

export const stagingCardNetworkKind: StandInKind = {
  name: 'staging-card-network',
  label: 'staging card refund network',
  refundsCards: stagingCardNetwork,
};
