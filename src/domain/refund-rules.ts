// Refund rules shared by both faces: states, how much may still be refunded, and the codes each
// face reports.
import { validateBankAccount } from './bank-accounts.ts';
import { validateDocument } from './documents.ts';
import { cmp, type Decimal, dec, divideRate, eq, isPositive, multiplyRate, sub, toFixed } from './money.ts';

export const REFUND_STATUSES = ['PENDING', 'COMPLETED', 'REJECTED', 'CANCELLED'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

const TRANSITIONS: Record<RefundStatus, RefundStatus[]> = {
  PENDING: ['COMPLETED', 'REJECTED', 'CANCELLED'],
  COMPLETED: [],
  REJECTED: [],
  CANCELLED: [],
};

export function canTransition(from: RefundStatus, to: RefundStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** PENDING and COMPLETED refunds hold part of the deposit; REJECTED and CANCELLED give it back. */
export function holdsAmount(status: RefundStatus): boolean {
  return status === 'PENDING' || status === 'COMPLETED';
}

/** Streamline refund `result`: 0 processing, 1 completed, 2 cancelled, 3 rejected. */
export function streamlineRefundResult(status: RefundStatus): '0' | '1' | '2' | '3' {
  return ({ PENDING: '0', COMPLETED: '1', CANCELLED: '2', REJECTED: '3' } as const)[status];
}

/** Streamline refund `desc`. */
export function streamlineRefundDesc(status: RefundStatus): string {
  return ({ PENDING: 'Pending', COMPLETED: 'Completed', CANCELLED: 'Cancelled', REJECTED: 'Rejected' } as const)[status];
}

/** v3 card refund_info.result. */
export function cardRefundResult(status: RefundStatus): 'SUCCESS' | 'IN_PROGRESS' | 'REJECTED' {
  if (status === 'COMPLETED') return 'SUCCESS';
  if (status === 'PENDING') return 'IN_PROGRESS';
  return 'REJECTED';
}

export interface DepositAmounts {
  amount: Decimal;
  localAmount: Decimal;
  /** Sums of the PENDING and COMPLETED refunds. */
  heldAmount: Decimal;
  heldLocal: Decimal;
}

export type RefundAmount = { ok: true; amount: Decimal; localAmount: Decimal } | { ok: false; reason: string };

/**
 * The refund in both currencies. `requested` is in the deposit currency (`inLocal` false) or the
 * local currency (`inLocal` true); absent means what remains of the deposit. The other currency follows
 * the deposit's own rate, and a request for exactly what remains maps to exactly what remains
 * in both, so a series of partial refunds can always reach the full amount.
 */
export function refundAmounts(d: DepositAmounts, requested: Decimal | undefined, inLocal: boolean): RefundAmount {
  const remaining = sub(d.amount, d.heldAmount);
  const remainingLocal = sub(d.localAmount, d.heldLocal);
  if (requested === undefined) {
    // No amount: what remains (the whole deposit, or the rest after partial refunds).
    if (!isPositive(remaining)) return { ok: false, reason: 'Nothing is left to refund: the deposit is already fully refunded' };
    return { ok: true, amount: remaining, localAmount: remainingLocal };
  }
  if (!isPositive(requested)) return { ok: false, reason: 'The amount must be greater than 0' };
  const [mine, theirs] = inLocal ? [remainingLocal, remaining] : [remaining, remainingLocal];
  if (cmp(requested, mine) > 0) return { ok: false, reason: `The amount exceeds what can still be refunded (${toFixed(mine, 2)})` };
  if (eq(requested, mine)) return inLocal ? { ok: true, amount: theirs, localAmount: requested } : { ok: true, amount: requested, localAmount: theirs };
  const converted = inLocal
    ? divideRate(multiplyRate(requested, d.amount, 12), d.localAmount, 2)
    : divideRate(multiplyRate(requested, d.localAmount, 12), d.amount, 2);
  // Rounding can make a small refund zero in the other currency, or nudge it past what remains.
  const safe = cmp(converted, theirs) > 0 ? theirs : isPositive(converted) ? converted : dec('0.01');
  if (cmp(safe, theirs) > 0) return { ok: false, reason: 'The amount is too small to refund' };
  return inLocal ? { ok: true, amount: safe, localAmount: requested } : { ok: true, amount: requested, localAmount: safe };
}

/** A part of a refund's bank account, named as the v3 body names it (`bank_account.<field>`). */
export type RefundAccountField = 'account_number' | 'branch' | 'account_type' | 'bank_code' | 'document';
export interface RefundFieldError {
  field: RefundAccountField;
  reason: string;
}

/**
 * The one check of a refund's bank account against the deposit's country: the holder's document
 * (when given), and the account itself unless the deposit was paid by card (a card refund goes
 * back to the card, so its account is not used). Each face renders the errors in its own format.
 */
export function refundAccountErrors(
  country: string,
  card: boolean,
  a: { document?: string; document_type?: string; account_number?: string; branch?: string; account_type?: string; bank_code?: string },
): RefundFieldError[] {
  const errors: RefundFieldError[] = [];
  if (a.document !== undefined) {
    const doc = validateDocument(country, a.document, a.document_type);
    if (!doc.ok) errors.push({ field: 'document', reason: doc.reason });
  }
  if (!card && a.account_number !== undefined) {
    const account = validateBankAccount(country, { account: a.account_number, branch: a.branch, accountType: a.account_type, bankCode: a.bank_code });
    if (!account.ok) errors.push({ field: account.field === 'account' ? 'account_number' : account.field, reason: account.reason });
  }
  return errors;
}
