// An acquirer's notifications applied to deposits (Adyen's standard notifications, verified by
// the connector: src/connectors/adyen/notifications.ts). Unlike a PSP's webhook, an Adyen
// notification is the acquirer's signed statement (HMAC under the operator's key): there is no
// payment to read back for a voucher paid days later. A batch is refused whole when one item does
// not verify. Each item's effect is idempotent, so a duplicated, replayed or out-of-order
// delivery changes nothing twice, and the item is then recorded once by pspReference + eventCode:
//
//   AUTHORISATION true    the payment completes its deposit through applyPayment (recorded once
//                         under its pspReference; amount and charge must match, else kept as
//                         unmatched for the operator); the card's brand and last four are kept
//   AUTHORISATION false   a refused card attempt: recorded (health) and, once, kept as its PENDING
//                         deposit's card_refusal (reason, refusalReasonCode); the deposit stays
//                         payable (another card on the hosted page) until it expires
//   OFFER_CLOSED          a voucher expired unpaid: its PENDING deposit is cancelled
//   REFUND, REFUND_FAILED the refund with that reference is looked up now (hintConnectorRefund,
//                         by the caller), which reads this record
//   chargebacks           NOTIFICATION_OF_CHARGEBACK, CHARGEBACK, CHARGEBACK_REVERSED,
//                         SECOND_CHARGEBACK: src/deposits/disputes.ts
//   anything else         recorded only
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { toDb } from '../domain/money.ts';
import type { AdyenConnector } from '../connectors/adyen/connector.ts';
import { cardFrom, fromMinor } from '../connectors/adyen/mapping.ts';
import type { AdyenNotification } from '../connectors/adyen/notifications.ts';
import { applyPayment } from './payments.ts';
import { recordCardRefusal } from './return-leg.ts';
import { transitionDepositIn } from './service.ts';
import { applyDispute, DISPUTE_EVENTS } from './disputes.ts';

export type NotificationsOutcome =
  | { kind: 'accepted'; applied: number; duplicates: number; refundReferences: string[] }
  | { kind: 'forged'; reason: string };

async function recordEvent(q: Queryable, n: AdyenNotification, now: Date): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO adyen_events (psp_reference, event_code, success, merchant_reference, original_reference, amount, currency, reason, payment_method, additional_data, event_date, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING RETURNING psp_reference`,
    [n.pspReference, n.eventCode, n.success, n.merchantReference, n.originalReference, toDb(fromMinor(n.value)), n.currency, n.reason, n.paymentMethod,
      JSON.stringify(n.additionalData), n.eventDate && !Number.isNaN(Date.parse(n.eventDate)) ? new Date(n.eventDate) : null, now],
  );
  return rows.length > 0;
}

async function seen(q: Queryable, n: AdyenNotification): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM adyen_events WHERE psp_reference = $1 AND event_code = $2', [n.pspReference, n.eventCode]);
  return rows.length > 0;
}

/** A notification batch from Adyen: verified, then each item applied once. */
export async function receiveAdyenNotifications(ctx: AppContext, connector: AdyenConnector, body: unknown): Promise<NotificationsOutcome> {
  const batch = connector.verify(body);
  if (!batch.ok) return { kind: 'forged', reason: batch.reason };
  let applied = 0;
  let duplicates = 0;
  const refundReferences: string[] = [];
  for (const n of batch.items) {
    if (await seen(ctx.db, n)) {
      duplicates++;
      continue;
    }
    switch (n.eventCode) {
      case 'AUTHORISATION':
        if (n.success) {
          const result = await applyPayment(ctx, connector, {
            id: n.pspReference, chargeReference: n.merchantReference, amount: fromMinor(n.value), currency: n.currency, receiver: n.merchantAccountCode,
            paidAt: n.eventDate && !Number.isNaN(Date.parse(n.eventDate)) ? new Date(n.eventDate) : ctx.now(), raw: { paymentMethod: n.paymentMethod },
          }, 'webhook');
          const card = cardFrom(n.paymentMethod, n.additionalData.cardSummary);
          if (card && result !== 'unmatched') {
            await ctx.db.query(`UPDATE deposits SET card_detail = $3 WHERE connector = $1 AND connector_reference = $2 AND card_detail IS NULL`, [connector.name, n.merchantReference, JSON.stringify(card)]);
          }
        }
        break;
      case 'OFFER_CLOSED':
        if (n.success) {
          await ctx.db.tx(async (q) => {
            const { rows } = await q.query<{ id: number; status: string }>('SELECT id, status FROM deposits WHERE connector = $1 AND connector_reference = $2 FOR UPDATE', [connector.name, n.merchantReference]);
            if (rows[0]?.status === 'PENDING') await transitionDepositIn(q, ctx, rows[0].id, 'CANCELLED', 'expiry', { actor: 'provider', note: `adyen OFFER_CLOSED ${n.pspReference}` });
          });
        }
        break;
      case 'REFUND':
      case 'REFUND_FAILED':
        refundReferences.push(n.merchantReference);
        break;
      default:
        if (DISPUTE_EVENTS.has(n.eventCode) && n.originalReference) {
          const deadline = n.additionalData.defensePeriodEndsAt;
          await applyDispute(ctx, connector.name, {
            pspReference: n.pspReference, eventCode: n.eventCode, paymentReference: n.originalReference, amount: fromMinor(n.value), currency: n.currency,
            reason: n.reason, reasonCode: n.additionalData.chargebackReasonCode ?? null, deadlineAt: deadline && !Number.isNaN(Date.parse(deadline)) ? new Date(deadline) : null,
          });
        }
        // Anything else (CANCELLATION, CAPTURE, reports) is recorded only.
        break;
    }
    if (await recordEvent(ctx.db, n, ctx.now())) {
      applied++;
      // Recorded first, so a concurrent copy of the same refusal counts it once.
      if (n.eventCode === 'AUTHORISATION' && !n.success && n.merchantReference) {
        await recordCardRefusal(ctx, connector.name, n.merchantReference, { reason: n.reason ?? 'Refused', reasonCode: n.additionalData.refusalReasonCode ?? null });
      }
    } else duplicates++;
  }
  return { kind: 'accepted', applied, duplicates, refundReferences };
}
