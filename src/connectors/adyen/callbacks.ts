// The Adyen kind's callback (src/connectors/kind.ts `callbacks`): POST /connectors/adyen/notifications,
// Adyen's standard notifications. Every item's HMAC is verified with the operator's key(s) (a forged
// or tampered batch: 401, nothing applied); each item is translated into what it means to caja
// (src/connectors/kind.ts AcquirerEvent), applied once by deposits (src/deposits/acquirer-events.ts)
// and refunds, recorded here in adyen_events (the connector's own record, read back by its
// connector), and the batch is answered "[accepted]", as Adyen expects.
import type { Queryable } from '../../db/db.ts';
import { toDb } from '../../domain/money.ts';
import type { AcquirerEvent, KindCallback, ReceivedEvent } from '../kind.ts';
import type { AdyenConnector } from './connector.ts';
import { cardFrom, fromMinor } from './mapping.ts';
import { ACCEPTED, type AdyenNotification } from './notifications.ts';

const DISPUTE_EVENTS = new Set(['NOTIFICATION_OF_CHARGEBACK', 'CHARGEBACK', 'CHARGEBACK_REVERSED', 'SECOND_CHARGEBACK']);

function dateOf(s: string | null | undefined): Date | null {
  return s && !Number.isNaN(Date.parse(s)) ? new Date(s) : null;
}

/** What one verified notification item means to caja. */
export function eventOf(n: AdyenNotification, now: Date): AcquirerEvent {
  switch (n.eventCode) {
    case 'AUTHORISATION':
      if (!n.success) {
        return n.merchantReference
          ? { type: 'refused', chargeReference: n.merchantReference, reason: n.reason ?? 'Refused', reasonCode: n.additionalData.refusalReasonCode ?? null }
          : { type: 'other' };
      }
      return {
        type: 'paid',
        payment: {
          id: n.pspReference, chargeReference: n.merchantReference, amount: fromMinor(n.value), currency: n.currency, receiver: n.merchantAccountCode,
          paidAt: dateOf(n.eventDate) ?? now, raw: { paymentMethod: n.paymentMethod },
        },
        card: cardFrom(n.paymentMethod, n.additionalData.cardSummary) ?? null,
      };
    case 'OFFER_CLOSED':
      return n.success ? { type: 'expired', chargeReference: n.merchantReference, note: `adyen OFFER_CLOSED ${n.pspReference}` } : { type: 'other' };
    case 'REFUND':
    case 'REFUND_FAILED':
      return { type: 'refund', reference: n.merchantReference };
    default:
      if (DISPUTE_EVENTS.has(n.eventCode) && n.originalReference) {
        return {
          type: 'dispute',
          notice: {
            pspReference: n.pspReference, eventCode: n.eventCode, paymentReference: n.originalReference, amount: fromMinor(n.value), currency: n.currency,
            reason: n.reason, reasonCode: n.additionalData.chargebackReasonCode ?? null, deadlineAt: dateOf(n.additionalData.defensePeriodEndsAt),
          },
        };
      }
      // Anything else (CANCELLATION, CAPTURE, reports) is recorded only.
      return { type: 'other' };
  }
}

async function recordNotification(q: Queryable, n: AdyenNotification, now: Date): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO adyen_events (psp_reference, event_code, success, merchant_reference, original_reference, amount, currency, reason, payment_method, additional_data, event_date, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING RETURNING psp_reference`,
    [n.pspReference, n.eventCode, n.success, n.merchantReference, n.originalReference, toDb(fromMinor(n.value)), n.currency, n.reason, n.paymentMethod,
      JSON.stringify(n.additionalData), dateOf(n.eventDate), now],
  );
  return rows.length > 0;
}

export const adyenNotifications: KindCallback = {
  path: 'notifications',
  async receive(ctx, connector, post) {
    if (!connector || !('verify' in connector)) return { kind: 'not_configured' };
    const adyen = connector as AdyenConnector;
    const batch = adyen.verify(post.body);
    if (!batch.ok) return { kind: 'forbidden', message: `Notification refused: ${batch.reason}` };
    const events: ReceivedEvent[] = batch.items.map((n) => ({
      event: eventOf(n, ctx.now()),
      seen: async () => (await ctx.db.query('SELECT 1 FROM adyen_events WHERE psp_reference = $1 AND event_code = $2', [n.pspReference, n.eventCode])).rows.length > 0,
      record: () => recordNotification(ctx.db, n, ctx.now()),
    }));
    return { kind: 'events', connector: adyen, events, answer: { contentType: 'text/plain', body: ACCEPTED } };
  },
};
