// An acquirer's statements applied to deposits (e.g. card notifications, verified and translated
// by the connector's kind: src/connectors/kind.ts AcquirerEvent). Unlike a PSP's webhook, such a
// notification is the acquirer's signed statement: there is no payment to read back for a voucher
// paid days later. Each event's effect is idempotent, so a duplicated, replayed or out-of-order
// delivery changes nothing twice, and the kind then records the statement once:
//
//   paid      the payment completes its deposit through applyPayment (recorded once under its
//             id; amount and charge must match, else kept as unmatched for the operator); the
//             card's brand and last four are kept
//   refused   a refused card attempt: kept once (after it is recorded, so a concurrent copy counts
//             nothing more) as its PENDING deposit's card_refusal (reason and code); the deposit
//             stays payable (another card on the hosted page) until it expires
//   expired   a voucher expired unpaid: its PENDING deposit is cancelled
//   refund    the refund with that reference is looked up now (hintConnectorRefund, by the
//             caller), which reads the kind's record
//   dispute   chargebacks: src/deposits/disputes.ts
//   other     recorded only
import type { AppContext } from '../config/context.ts';
import type { ReceivedEvent } from '../connectors/kind.ts';
import type { PayinConnector } from '../connectors/payin.ts';
import { applyPayment } from './payments.ts';
import { recordCardRefusal } from './return-leg.ts';
import { transitionDepositIn } from './service.ts';
import { applyDispute } from './disputes.ts';

export interface EventsOutcome {
  applied: number;
  duplicates: number;
  /** The references of refunds whose state changed (looked up by refunds). */
  refundReferences: string[];
}

/** A verified batch of an acquirer's statements: each applied once, in order. */
export async function applyAcquirerEvents(ctx: AppContext, connector: PayinConnector, events: readonly ReceivedEvent[]): Promise<EventsOutcome> {
  let applied = 0;
  let duplicates = 0;
  const refundReferences: string[] = [];
  for (const received of events) {
    if (await received.seen()) {
      duplicates++;
      continue;
    }
    const e = received.event;
    switch (e.type) {
      case 'paid': {
        const result = await applyPayment(ctx, connector, e.payment, 'webhook');
        if (e.card && result !== 'unmatched') {
          await ctx.db.query(`UPDATE deposits SET card_detail = $3 WHERE connector = $1 AND connector_reference = $2 AND card_detail IS NULL`, [connector.name, e.payment.chargeReference, JSON.stringify(e.card)]);
        }
        break;
      }
      case 'expired':
        await ctx.db.tx(async (q) => {
          const { rows } = await q.query<{ id: number; status: string }>('SELECT id, status FROM deposits WHERE connector = $1 AND connector_reference = $2 FOR UPDATE', [connector.name, e.chargeReference]);
          if (rows[0]?.status === 'PENDING') await transitionDepositIn(q, ctx, rows[0].id, 'CANCELLED', 'expiry', { actor: 'provider', note: e.note });
        });
        break;
      case 'refund':
        refundReferences.push(e.reference);
        break;
      case 'dispute':
        await applyDispute(ctx, connector.name, e.notice);
        break;
      case 'refused':
      case 'other':
        break;
    }
    if (await received.record()) {
      applied++;
      if (e.type === 'refused') await recordCardRefusal(ctx, connector.name, e.chargeReference, { reason: e.reason, reasonCode: e.reasonCode });
    } else duplicates++;
  }
  return { applied, duplicates, refundReferences };
}
