// Chargebacks: a card payment disputed by the cardholder's bank. One dispute per disputed payment
// (deposit_disputes, migration 067), moved by the acquirer's dispute notifications, each applied
// once (dispute_events); the money is a bank-initiated return (src/deposits/returns.ts, kind
// 'chargeback'), the one object for MED, SPEI returns and chargebacks:
//
//   NOTIFICATION_OF_CHARGEBACK    the dispute is opened ('notified', with the defence deadline):
//                                 no money moves yet; event deposit.dispute_opened
//   CHARGEBACK, SECOND_CHARGEBACK the disputed share of the deposit's credit leaves the merchant's
//                                 balance as a return (recordReturn: debt when the available
//                                 balance does not cover it, event deposit.returned and the
//                                 merchant's notification); a dispute already charged is not
//                                 charged twice
//   CHARGEBACK_REVERSED           the merchant won: the return is reversed (reverseReturn, event
//                                 deposit.return_reversed)
//
// The acquirer's chargeback fee: Adyen bills it on its invoice, not in the notification, so the
// return carries none yet. Submitting defence documents is not done (docs/connectors.md).
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { fromDb, toDb, toFixed, type Decimal } from '../domain/money.ts';
import { recordEvent } from '../notifications/outbox.ts';
import { recordReturn, reverseReturn } from './returns.ts';

export const DISPUTE_EVENTS = new Set(['NOTIFICATION_OF_CHARGEBACK', 'CHARGEBACK', 'CHARGEBACK_REVERSED', 'SECOND_CHARGEBACK']);

/** One dispute notification, in the acquirer's words (amounts in the payment's currency). */
export interface DisputeNotice {
  /** The notification's own reference (with eventCode: applied once; a charge's return id). */
  pspReference: string;
  eventCode: string;
  /** The disputed payment's reference (Adyen: originalReference). */
  paymentReference: string;
  amount: Decimal;
  currency: string;
  reason: string | null;
  reasonCode: string | null;
  deadlineAt: Date | null;
}

export interface DisputeRow {
  id: number;
  deposit_id: number;
  merchant_id: number;
  connector: string;
  payment_reference: string;
  status: 'notified' | 'charged' | 'reversed';
  reason: string | null;
  reason_code: string | null;
  disputed_amount: string;
  disputed_currency: string;
  return_id: number | null;
  deadline_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

type Applied = 'applied' | 'duplicate' | 'unknown_payment';

/** Applies one dispute notification; unknown payments (not a deposit's) are ignored and logged. */
export async function applyDispute(ctx: AppContext, connector: string, n: DisputeNotice): Promise<Applied> {
  return ctx.db.tx((q) => applyIn(q, ctx, connector, n));
}

async function applyIn(q: Queryable, ctx: AppContext, connector: string, n: DisputeNotice): Promise<Applied> {
  const seen = await q.query('SELECT 1 FROM dispute_events WHERE connector = $1 AND psp_reference = $2 AND event_code = $3', [connector, n.pspReference, n.eventCode]);
  if (seen.rows.length) return 'duplicate';
  const pay = await q.query<{ deposit_id: number; merchant_id: number }>(
    `SELECT cp.deposit_id, d.merchant_id FROM connector_payments cp JOIN deposits d ON d.id = cp.deposit_id
     WHERE cp.connector = $1 AND cp.payment_id = $2 AND cp.status = 'applied'`, [connector, n.paymentReference]);
  const p = pay.rows[0];
  if (!p) {
    ctx.log.warn({ connector, payment: n.paymentReference, event: n.eventCode }, 'dispute notification for a payment no deposit took: ignored');
    return 'unknown_payment';
  }
  const now = ctx.now();
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO deposit_disputes (deposit_id, merchant_id, connector, payment_reference, status, reason, reason_code, disputed_amount, disputed_currency, deadline_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'notified', $5, $6, $7, $8, $9, $10, $10)
     ON CONFLICT (connector, payment_reference) DO UPDATE SET updated_at = $10,
       reason = COALESCE($5, deposit_disputes.reason), reason_code = COALESCE($6, deposit_disputes.reason_code), deadline_at = COALESCE($9, deposit_disputes.deadline_at)
     RETURNING id`,
    [p.deposit_id, p.merchant_id, connector, n.paymentReference, n.reason, n.reasonCode, toDb(n.amount), n.currency, n.deadlineAt, now],
  );
  const id = rows[0]!.id;
  // The notification is claimed before anything moves: a concurrent copy of it waits here for
  // this transaction and then finds it taken.
  const claimed = await q.query('INSERT INTO dispute_events (connector, psp_reference, event_code, dispute_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING dispute_id',
    [connector, n.pspReference, n.eventCode, id]);
  if (!claimed.rows.length) return 'duplicate';
  const d = (await q.query<DisputeRow>('SELECT * FROM deposit_disputes WHERE id = $1 FOR UPDATE', [id])).rows[0]!;
  const charge = n.eventCode === 'CHARGEBACK' || n.eventCode === 'SECOND_CHARGEBACK';
  if (charge && d.status !== 'charged') {
    const r = await recordReturn(q, ctx, {
      provider: connector, providerReturnId: n.pspReference, paymentId: n.paymentReference, depositId: d.deposit_id, kind: 'chargeback',
      reason: n.reasonCode ?? n.eventCode, description: n.reason, amount: n.amount, currency: n.currency, fee: null, deadlineAt: n.deadlineAt ?? d.deadline_at, via: 'webhook',
      raw: { eventCode: n.eventCode },
    });
    await q.query(`UPDATE deposit_disputes SET status = 'charged', return_id = $2, updated_at = $3 WHERE id = $1`, [id, r.row.id, now]);
    await q.query('UPDATE dispute_events SET return_id = $4 WHERE connector = $1 AND psp_reference = $2 AND event_code = $3', [connector, n.pspReference, n.eventCode, r.row.id]);
  } else if (n.eventCode === 'CHARGEBACK_REVERSED' && d.status === 'charged' && d.return_id !== null) {
    await reverseReturn(q, d.return_id, `chargeback reversed (${connector} ${n.pspReference})`);
    await q.query(`UPDATE deposit_disputes SET status = 'reversed', updated_at = $2 WHERE id = $1`, [id, now]);
  } else if (n.eventCode === 'NOTIFICATION_OF_CHARGEBACK' && d.status === 'notified') {
    await recordEvent(q, {
      merchantId: d.merchant_id, type: 'deposit.dispute_opened', subjectType: 'deposit', subjectId: d.deposit_id,
      data: {
        deposit_id: d.deposit_id, dispute_id: d.id, reason: d.reason, reason_code: d.reason_code,
        disputed_amount: toFixed(fromDb(d.disputed_amount), 2), disputed_currency: d.disputed_currency, deadline_at: d.deadline_at?.toISOString() ?? null,
      },
    });
  }
  return 'applied';
}

export interface DisputeView extends DisputeRow {
  debit: string | null;
  debit_currency: string | null;
}

/** The disputes of deposits, newest first, with what their return took (the operator's listing). */
export async function listDisputes(q: Queryable, connector: string, limit: number): Promise<DisputeView[]> {
  return (await q.query<DisputeView>(
    `SELECT d.*, r.debit::text AS debit, r.debit_currency FROM deposit_disputes d LEFT JOIN deposit_returns r ON r.id = d.return_id
     WHERE d.connector = $1 ORDER BY d.updated_at DESC, d.id DESC LIMIT $2`, [connector, limit])).rows;
}
