// A refund's status changes (bank answer, sandbox, operator, a provider's outcome) and the one
// read of a refund row. Lower than service.ts (creation) and provider-refunds.ts (sending to a
// provider), which both apply outcomes through transitionRefund: neither imports the other's caller.
import { addRefundedAmount } from '../deposits/lookups.ts';
import type { AppContext } from '../config/context.ts';
import { type AuditEntry, recordAudit } from '../audit/audit.ts';
import type { Queryable } from '../db/db.ts';
import { fromDb, neg } from '../domain/money.ts';
import { canTransition, type RefundStatus } from '../domain/refund-rules.ts';
import { refundDebit } from '../domain/settlement.ts';
import { depositCreditOf } from '../balances/service.ts';
import { cajaAccount, findReservation, InsufficientFunds, merchantAccount, post, transfer, voidReservation } from '../ledger/ledger.ts';
import { recordEvent } from '../notifications/outbox.ts';

export interface RefundBankAccount {
  beneficiary?: string;
  document?: string;
  document_type?: string;
  bank_code?: string;
  bank_name?: string;
  branch?: string;
  account_number?: string;
  account_type?: string;
}

export interface RefundRow {
  id: number;
  merchant_id: number;
  deposit_id: number;
  source: 'v3' | 'streamline';
  status: RefundStatus;
  amount: string;
  currency: string;
  local_amount: string;
  local_currency: string;
  requested_amount: string | null;
  requested_currency: string | null;
  card: boolean;
  bank_account: RefundBankAccount | null;
  comments: string | null;
  notification_url: string | null;
  reason: string | null;
  reason_code: string | null;
  settlement_amount: string | null;
  settlement_fee: string | null;
  settlement_currency: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  // Joined from the deposit.
  invoice_id: string;
  country: string;
  payment_method: string | null;
  payment_type: string | null;
  deposit_test: boolean;
}

const SELECT = `SELECT r.*, d.invoice_id, d.country, d.payment_method, d.payment_type, d.test AS deposit_test
  FROM refunds r JOIN deposits d ON d.id = r.deposit_id`;

export async function getRefund(q: Queryable, merchantId: number | null, refundId: number): Promise<RefundRow | null> {
  const { rows } = await q.query<RefundRow>(
    `${SELECT} WHERE r.id = $1${merchantId === null ? '' : ' AND r.merchant_id = $2'}`,
    merchantId === null ? [refundId] : [refundId, merchantId],
  );
  return rows[0] ?? null;
}

/** The refund's status does not allow the change asked for (510 INVALID_STATUS_TRANSITION). */
export class RefundTransitionError extends Error {
  readonly kind = 'invalid_transition' as const;
}

/**
 * A refund created before the double-entry ledger (still PENDING at the upgrade) reserved
 * nothing; it takes its share of the deposit's credit when it completes, as it did then.
 */
async function debitUnreserved(q: Queryable, r: RefundRow & { deposit_amount: string }): Promise<void> {
  const credit = await depositCreditOf(q, r.deposit_id);
  if (!credit) return;
  const none = { units: 0n, scale: 0 };
  const debit = refundDebit(fromDb(r.amount), fromDb(r.deposit_amount), credit.net, none, none);
  try {
    await transfer(q, {
      merchantId: r.merchant_id, kind: 'refund.debit', subjectType: 'refund', subjectId: r.id,
      postings: [merchantAccount(r.merchant_id, credit.currency, 'available', neg(debit)), cajaAccount(credit.currency, 'settlement', debit)],
    });
  } catch (err) {
    if (err instanceof InsufficientFunds) throw new RefundTransitionError('The available balance does not cover this refund');
    throw err;
  }
}

/** Moves a PENDING refund to its outcome (bank answer, sandbox, operator); `audit` is written in its transaction. */
export async function transitionRefund(
  ctx: AppContext,
  merchantId: number,
  refundId: number,
  to: RefundStatus,
  cause: string,
  reason?: string,
  reasonCode?: string,
  audit?: AuditEntry,
  /** False when the caller answers the change itself (a card refund's response): no notification. */
  notify = true,
): Promise<RefundRow | null> {
  const found = await ctx.db.tx(async (q) => {
    const { rows } = await q.query<{ id: number }>('SELECT id FROM refunds WHERE id = $1 AND merchant_id = $2 FOR UPDATE', [refundId, merchantId]);
    if (!rows[0]) return false;
    await applyTransition(q, refundId, to, cause, reason, reasonCode, notify);
    if (audit) await recordAudit(q, audit);
    return true;
  });
  return found ? getRefund(ctx.db, merchantId, refundId) : null;
}

async function applyTransition(q: Queryable, refundId: number, to: RefundStatus, cause: string, reason: string | undefined, reasonCode: string | undefined, notify: boolean) {
  const r = (await q.query<RefundRow & { deposit_amount: string }>(
    `SELECT r.*, d.test AS deposit_test, d.amount AS deposit_amount FROM refunds r JOIN deposits d ON d.id = r.deposit_id WHERE r.id = $1`,
    [refundId],
  )).rows[0];
  if (!canTransition(r.status, to)) throw new RefundTransitionError(`A ${r.status} refund cannot become ${to}`);
  await q.query(
    `UPDATE refunds SET status = $2, reason = $3, reason_code = $4, updated_at = now(), completed_at = CASE WHEN $2 = 'COMPLETED' THEN now() ELSE completed_at END WHERE id = $1`,
    [refundId, to, reason ?? null, reasonCode ?? null],
  );
  await q.query('INSERT INTO refund_status_changes (refund_id, from_status, to_status, cause) VALUES ($1, $2, $3, $4)', [refundId, r.status, to, cause]);
  if (to === 'COMPLETED') {
    await addRefundedAmount(q, r.deposit_id, r.amount);
  }
  // The reservation made at creation leaves the balance for good, or goes back to available.
  const reservation = await findReservation(q, 'refund.reserve', 'refund', refundId);
  if (reservation && to === 'COMPLETED') await post(q, reservation, 'refund.post', r.settlement_fee ? fromDb(r.settlement_fee) : undefined);
  else if (reservation) await voidReservation(q, reservation, 'refund.void');
  else if (to === 'COMPLETED' && r.settlement_amount === null) await debitUnreserved(q, r);
  const notifications = notify && r.notification_url
    ? [{ kind: 'v3.refund', url: r.notification_url, contentType: 'application/json' as const, body: JSON.stringify({ refund_id: refundId }), signingSet: 'deposits' as const }]
    : [];
  await recordEvent(q, {
    merchantId: r.merchant_id,
    type: 'refund.status_changed',
    subjectType: 'refund',
    subjectId: refundId,
    data: { refund_id: refundId, deposit_id: r.deposit_id, status: to, previous_status: r.status, cause, at: new Date().toISOString(), ...(reasonCode ? { reason_code: reasonCode } : {}) },
    notifications,
  });
}
