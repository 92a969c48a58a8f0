// Chargebacks: a card payment disputed by the cardholder's bank, in its first form (one dispute
// per disputed payment, table deposit_disputes, migration 067). Moved by the acquirer's dispute
// notifications, each applied once (dispute_events):
//
//   NOTIFICATION_OF_CHARGEBACK   the dispute is opened ('notified', with the defence deadline):
//                                no money moves yet
//   CHARGEBACK, SECOND_CHARGEBACK the disputed amount's share of what the deposit credited is
//                                taken from the merchant's available balance ('charged'); a
//                                dispute already charged is not charged twice
//   CHARGEBACK_REVERSED          the merchant won: what was taken is given back ('reversed')
//
// Money moves as balance adjustments (src/balances/service.ts, actor the connector), so the ledger
// and its check know them. A debit the available balance does not cover is not forced below zero:
// the dispute is marked unrecovered for the operator. The acquirer's fee: Adyen bills chargeback
// fees on its invoice, not in the notification, so fee is 0 until caja reads it from there.
// Every change is an event on the deposit (deposit.dispute_opened / _charged / _reversed), which
// the merchant sees in its events. Submitting defence documents is not done (docs/connectors.md).
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { fromDb, toDb, toFixed, type Decimal } from '../domain/money.ts';
import { refundDebit } from '../domain/settlement.ts';
import { adjustBalanceIn, depositCreditOf } from '../balances/service.ts';
import { isInsufficientFunds } from '../ledger/ledger.ts';
import { recordEvent } from '../notifications/outbox.ts';

export const DISPUTE_EVENTS = new Set(['NOTIFICATION_OF_CHARGEBACK', 'CHARGEBACK', 'CHARGEBACK_REVERSED', 'SECOND_CHARGEBACK']);

/** One dispute notification, in the acquirer's words (amounts in the payment's currency). */
export interface DisputeNotice {
  /** The notification's own reference (with eventCode: applied once). */
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
  kind: string;
  status: 'notified' | 'charged' | 'reversed';
  reason: string | null;
  reason_code: string | null;
  disputed_amount: string;
  disputed_currency: string;
  amount: string | null;
  fee: string | null;
  currency: string | null;
  unrecovered: boolean;
  deadline_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

type Applied = 'applied' | 'duplicate' | 'unknown_payment' | 'unrecovered';

/** Applies one dispute notification; unknown payments (not a deposit's) are ignored and logged. */
export async function applyDispute(ctx: AppContext, connector: string, n: DisputeNotice): Promise<Applied> {
  try {
    return await ctx.db.tx((q) => applyIn(q, ctx, connector, n, false));
  } catch (err) {
    if (!isInsufficientFunds(err)) throw err;
    // The merchant's available balance does not cover the debit: recorded, not forced.
    const r = await ctx.db.tx((q) => applyIn(q, ctx, connector, n, true));
    ctx.log.error({ connector, payment: n.paymentReference, event: n.eventCode }, 'chargeback: the merchant\'s available balance does not cover it; marked unrecovered for the operator');
    return r;
  }
}

async function applyIn(q: Queryable, ctx: AppContext, connector: string, n: DisputeNotice, short: boolean): Promise<Applied> {
  const seen = await q.query('SELECT 1 FROM dispute_events WHERE connector = $1 AND psp_reference = $2 AND event_code = $3', [connector, n.pspReference, n.eventCode]);
  if (seen.rows.length) return 'duplicate';
  const pay = await q.query<{ deposit_id: number; merchant_id: number; payer_amount: string }>(
    `SELECT cp.deposit_id, d.merchant_id, d.payer_amount::text FROM connector_payments cp JOIN deposits d ON d.id = cp.deposit_id
     WHERE cp.connector = $1 AND cp.payment_id = $2 AND cp.status = 'applied'`, [connector, n.paymentReference]);
  const p = pay.rows[0];
  if (!p) {
    ctx.log.warn({ connector, payment: n.paymentReference, event: n.eventCode }, 'dispute notification for a payment no deposit took: ignored');
    return 'unknown_payment';
  }
  const now = ctx.now();
  const { rows } = await q.query<DisputeRow>(
    `INSERT INTO deposit_disputes (deposit_id, merchant_id, connector, payment_reference, status, reason, reason_code, disputed_amount, disputed_currency, deadline_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'notified', $5, $6, $7, $8, $9, $10, $10)
     ON CONFLICT (connector, payment_reference) DO UPDATE SET updated_at = $10,
       reason = COALESCE($5, deposit_disputes.reason), reason_code = COALESCE($6, deposit_disputes.reason_code), deadline_at = COALESCE($9, deposit_disputes.deadline_at)
     RETURNING *`,
    [p.deposit_id, p.merchant_id, connector, n.paymentReference, n.reason, n.reasonCode, toDb(n.amount), n.currency, n.deadlineAt, now],
  );
  let d = rows[0]!;
  // Locked for the change (a concurrent notification of the same dispute waits).
  d = (await q.query<DisputeRow>('SELECT * FROM deposit_disputes WHERE id = $1 FOR UPDATE', [d.id])).rows[0]!;
  // The notification is claimed before anything moves: a concurrent copy of it waits here for
  // this transaction and then finds it taken.
  const claimed = await q.query('INSERT INTO dispute_events (connector, psp_reference, event_code, dispute_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING dispute_id',
    [connector, n.pspReference, n.eventCode, d.id]);
  if (!claimed.rows.length) return 'duplicate';
  let adjustmentId: number | null = null;
  let type = 'deposit.dispute_updated';
  const charge = n.eventCode === 'CHARGEBACK' || n.eventCode === 'SECOND_CHARGEBACK';
  if (charge && d.status !== 'charged') {
    const credit = await depositCreditOf(q, p.deposit_id);
    const take = credit ? refundDebit(n.amount, fromDb(p.payer_amount), credit.net, { units: 0n, scale: 2 }, { units: 0n, scale: 2 }) : null;
    const fee = { units: 0n, scale: 2 };
    if (credit && take && take.units > 0n && !short) {
      adjustmentId = (await adjustBalanceIn(q, { merchantId: p.merchant_id, direction: 'debit', amount: take, currency: credit.currency, reason: `chargeback of deposit ${p.deposit_id} (${connector} ${n.paymentReference})`, actor: connector })).id;
    }
    await q.query(`UPDATE deposit_disputes SET status = 'charged', amount = $2, fee = $3, currency = $4, unrecovered = $5, updated_at = $6 WHERE id = $1`,
      [d.id, take ? toDb(take) : '0', toDb(fee), credit?.currency ?? null, short, now]);
    type = 'deposit.dispute_charged';
  } else if (n.eventCode === 'CHARGEBACK_REVERSED' && d.status === 'charged') {
    if (d.amount && d.currency && !d.unrecovered && fromDb(d.amount).units > 0n) {
      adjustmentId = (await adjustBalanceIn(q, { merchantId: p.merchant_id, direction: 'credit', amount: fromDb(d.amount), currency: d.currency, reason: `chargeback of deposit ${p.deposit_id} reversed (${connector} ${n.paymentReference})`, actor: connector })).id;
    }
    await q.query(`UPDATE deposit_disputes SET status = 'reversed', unrecovered = false, updated_at = $2 WHERE id = $1`, [d.id, now]);
    type = 'deposit.dispute_reversed';
  } else if (n.eventCode === 'NOTIFICATION_OF_CHARGEBACK' && d.status === 'notified') {
    type = 'deposit.dispute_opened';
  }
  if (adjustmentId !== null) await q.query('UPDATE dispute_events SET adjustment_id = $4 WHERE connector = $1 AND psp_reference = $2 AND event_code = $3', [connector, n.pspReference, n.eventCode, adjustmentId]);
  const after = (await q.query<DisputeRow>('SELECT * FROM deposit_disputes WHERE id = $1', [d.id])).rows[0]!;
  await recordEvent(q, {
    merchantId: p.merchant_id, type, subjectType: 'deposit', subjectId: p.deposit_id,
    data: {
      deposit_id: p.deposit_id, dispute_id: Number(after.id), status: after.status, event: n.eventCode, reason: after.reason, reason_code: after.reason_code,
      disputed_amount: toFixed(fromDb(after.disputed_amount), 2), disputed_currency: after.disputed_currency,
      amount: after.amount, currency: after.currency, deadline_at: after.deadline_at?.toISOString() ?? null,
    },
  });
  return short ? 'unrecovered' : 'applied';
}

/** The disputes of deposits, newest first (the operator's listing). */
export async function listDisputes(q: Queryable, connector: string, limit: number): Promise<DisputeRow[]> {
  return (await q.query<DisputeRow>('SELECT * FROM deposit_disputes WHERE connector = $1 ORDER BY updated_at DESC, id DESC LIMIT $2', [connector, limit])).rows;
}
