// Cashout states (spec: States and transitions, Cashout) and what each face reports of them.
//
//   (create) ──on_hold──▶ ON_HOLD ◀──hold/release──▶ PENDING ──bank pickup──▶ DELIVERED
//   PENDING, ON_HOLD ──cancel──▶ CANCELLED          DELIVERED ──bank──▶ COMPLETED | REJECTED
//   COMPLETED ──beneficiary bank bounces it days later──▶ REJECTED
//
// DECLINED is not a state of a stored cashout: a creation that fails validation stores nothing.

export const CASHOUT_STATUSES = ['PENDING', 'ON_HOLD', 'CANCELLED', 'DELIVERED', 'COMPLETED', 'REJECTED'] as const;
export type CashoutStatus = (typeof CASHOUT_STATUSES)[number];

export type CashoutTrigger = 'hold' | 'release' | 'cancel' | 'deliver' | 'complete' | 'reject';

const TRANSITIONS: Record<CashoutTrigger, Partial<Record<CashoutStatus, CashoutStatus>>> = {
  hold: { PENDING: 'ON_HOLD' },
  release: { ON_HOLD: 'PENDING' },
  cancel: { PENDING: 'CANCELLED', ON_HOLD: 'CANCELLED' },
  deliver: { PENDING: 'DELIVERED' },
  complete: { DELIVERED: 'COMPLETED' },
  reject: { DELIVERED: 'REJECTED', COMPLETED: 'REJECTED' },
};

/** The status `trigger` leads to from `from`, or null when the transition is not allowed (510). */
export function nextCashoutStatus(from: CashoutStatus, trigger: CashoutTrigger): CashoutStatus | null {
  return TRANSITIONS[trigger][from] ?? null;
}

/** `cashout_status` numbers (DESIGN.md): 0 Pending, 1 Completed, 2 Canceled, 3 Rejected, 4 Delivered, 5 On hold. */
export const CASHOUT_STATUS_CODE: Record<CashoutStatus, number> = {
  PENDING: 0, COMPLETED: 1, CANCELLED: 2, REJECTED: 3, DELIVERED: 4, ON_HOLD: 5,
};

export const CASHOUT_STATUS_DESCRIPTION: Record<CashoutStatus, string> = {
  PENDING: 'Pending', COMPLETED: 'Completed', CANCELLED: 'Canceled', REJECTED: 'Rejected', DELIVERED: 'Delivered', ON_HOLD: 'On hold',
};

/**
 * Why a bank rejects a cashout. The codes follow the provider family's 8xx rejection range; the
 * table is documented in docs/cashouts.md.
 */
export const REJECTIONS = {
  '800': 'The beneficiary account number is incorrect',
  '801': 'The beneficiary account is closed',
  '802': 'The amount is not accepted by the beneficiary bank',
  '803': 'The beneficiary bank is invalid',
  '804': 'The beneficiary bank branch is incorrect',
  '805': 'The beneficiary document does not match the account holder',
  '806': 'The beneficiary name does not match the account holder',
  '807': 'The beneficiary account cannot receive funds',
  '808': 'Rejected by the beneficiary bank',
  '809': 'Returned by the beneficiary bank after it was credited',
} as const;
export type RejectionCode = keyof typeof REJECTIONS;

export function isRejectionCode(code: string): code is RejectionCode {
  return Object.hasOwn(REJECTIONS, code);
}
