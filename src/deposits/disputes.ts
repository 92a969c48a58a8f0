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
// The chargeback fee: the acquirer (Adyen) bills its own on its invoice, not in the notification,
// so caja charges the merchant its own price (the deposit's fee schedule: `chargeback`, USD,
// domain/fees.ts), taken in the same ledger transfer as the charged-back amount and booked as a
// fee; each charge (CHARGEBACK, SECOND_CHARGEBACK) takes it, CHARGEBACK_REVERSED does not give it
// back. Each change of the dispute sends the deposit's notification with its `dispute`
// (dispute_id, status). Submitting defence documents is done in Adyen's Customer Area
// (docs/connectors.md); caja shows the dispute and its deadline (disputesOfDeposit).
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { fromDb, toDb, toFixed, type Decimal } from '../domain/money.ts';
import { recordEvent } from '../notifications/outbox.ts';
import { effectiveSchedule, type FeeOverrides } from '../domain/fees.ts';
import { depositNotifications } from './notifications.ts';
import { recordReturn, reverseReturn } from './returns.ts';
import type { DepositRow } from './store.ts';

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
    const dep = (await q.query<{ fee_schedule: FeeOverrides | null }>('SELECT fee_schedule FROM deposits WHERE id = $1', [d.deposit_id])).rows[0];
    const r = await recordReturn(q, ctx, {
      provider: connector, providerReturnId: n.pspReference, paymentId: n.paymentReference, depositId: d.deposit_id, kind: 'chargeback',
      reason: n.reasonCode ?? n.eventCode, description: n.reason, amount: n.amount, currency: n.currency,
      feeUsd: fromDb(effectiveSchedule(dep?.fee_schedule).chargeback), deadlineAt: n.deadlineAt ?? d.deadline_at, via: 'webhook',
      raw: { eventCode: n.eventCode }, notify: { dispute: { dispute_id: id, status: disputeStatus('charged') } },
    });
    await q.query(`UPDATE deposit_disputes SET status = 'charged', return_id = $2, updated_at = $3 WHERE id = $1`, [id, r.row.id, now]);
    await q.query('UPDATE dispute_events SET return_id = $4 WHERE connector = $1 AND psp_reference = $2 AND event_code = $3', [connector, n.pspReference, n.eventCode, r.row.id]);
  } else if (n.eventCode === 'CHARGEBACK_REVERSED' && d.status === 'charged' && d.return_id !== null) {
    await reverseReturn(q, d.return_id, `chargeback reversed (${connector} ${n.pspReference})`, { ctx, extra: { dispute: { dispute_id: id, status: disputeStatus('reversed') } } });
    await q.query(`UPDATE deposit_disputes SET status = 'reversed', updated_at = $2 WHERE id = $1`, [id, now]);
  } else if (n.eventCode === 'NOTIFICATION_OF_CHARGEBACK' && d.status === 'notified') {
    const { rows: [dep] } = await q.query<DepositRow & { merchant_notification_url: string | null }>(
      'SELECT d.*, m.notification_url AS merchant_notification_url FROM deposits d JOIN merchants m ON m.id = d.merchant_id WHERE d.id = $1', [d.deposit_id]);
    await recordEvent(q, {
      merchantId: d.merchant_id, type: 'deposit.dispute_opened', subjectType: 'deposit', subjectId: d.deposit_id,
      data: {
        deposit_id: d.deposit_id, dispute_id: d.id, reason: d.reason, reason_code: d.reason_code,
        disputed_amount: toFixed(fromDb(d.disputed_amount), 2), disputed_currency: d.disputed_currency, deadline_at: d.deadline_at?.toISOString() ?? null,
      },
      notifications: dep ? await depositNotifications(q, ctx, dep, dep.merchant_notification_url, { dispute: { dispute_id: d.id, status: disputeStatus('notified') } }) : [],
    });
  }
  return 'applied';
}

/** A dispute's status as the API shows it: OPEN (notified, no money moved), CHARGED_BACK, REVERSED (the merchant won). */
export function disputeStatus(s: DisputeRow['status']): 'OPEN' | 'CHARGED_BACK' | 'REVERSED' {
  return s === 'notified' ? 'OPEN' : s === 'charged' ? 'CHARGED_BACK' : 'REVERSED';
}

/** A deposit's dispute as GET /v3/deposits/{id}, the panel and the console show it. */
export interface DepositDispute {
  id: number;
  status: DisputeRow['status'];
  reason: string | null;
  reason_code: string | null;
  disputed_amount: string;
  disputed_currency: string;
  deadline_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** What its charges took from the balance (applied returns) and the chargeback fees, in debit_currency. */
  debit: string | null;
  fee: string | null;
  debit_currency: string | null;
}

/**
 * The disputes a deposit's views show: only card deposits are disputed (chargebacks), so no other
 * deposit costs a query on the hot GET /v3/deposits/{id}.
 */
export async function disputesShown(q: Queryable, d: { id: number; payment_type: string | null }): Promise<DepositDispute[]> {
  return d.payment_type === 'CREDIT_CARD' || d.payment_type === 'DEBIT_CARD' ? disputesOfDeposit(q, d.id) : [];
}

/** The disputes of one deposit, oldest first, with what their chargebacks took and the fees charged. */
export async function disputesOfDeposit(q: Queryable, depositId: number): Promise<DepositDispute[]> {
  return (await q.query<DepositDispute>(
    `SELECT d.id, d.status, d.reason, d.reason_code, d.disputed_amount::text AS disputed_amount, d.disputed_currency, d.deadline_at, d.created_at, d.updated_at,
       (SELECT sum(r.debit)::text FROM deposit_returns r WHERE r.id IN (SELECT e.return_id FROM dispute_events e WHERE e.dispute_id = d.id) AND r.status = 'applied') AS debit,
       (SELECT sum(r.fee)::text FROM deposit_returns r WHERE r.id IN (SELECT e.return_id FROM dispute_events e WHERE e.dispute_id = d.id)) AS fee,
       (SELECT max(r.debit_currency) FROM deposit_returns r WHERE r.id IN (SELECT e.return_id FROM dispute_events e WHERE e.dispute_id = d.id)) AS debit_currency
     FROM deposit_disputes d WHERE d.deposit_id = $1 ORDER BY d.id`, [depositId])).rows;
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
