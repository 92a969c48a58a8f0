// The deposit state machine (spec "States and transitions"). DECLINED is not here: it names a
// creation that failed, and such a deposit is never stored.
//
//   PENDING ──payment──▶ COMPLETED        PENDING ──expiry / cancel──▶ CANCELLED
//   PENDING ──crypto payment──▶ APPROVED ──funds arrive──▶ COMPLETED
//   CANCELLED ──late payment (operator only)──▶ COMPLETED
//   COMPLETED: never moves.

export const DEPOSIT_STATUSES = ['PENDING', 'APPROVED', 'COMPLETED', 'CANCELLED'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

/** Why a deposit changed; recorded with every change and sent in the event data. */
export type TransitionCause =
  /** The provider (or the staging simulator) confirmed the customer's payment. */
  | 'payment'
  /** The customer did not pay before expiration_date. */
  | 'expiry'
  /** Cancelled before payment (sandbox cancel, merchant or provider cancellation). */
  | 'cancel'
  /** Operator action for a customer who paid after expiry or paid a wrong amount. */
  | 'late_payment';

export type TransitionCheck = { ok: true } | { ok: false; reason: string };

/**
 * Whether `from` may move to `to` for `cause`. Crypto deposits pass through APPROVED (the
 * customer paid, the funds are on their way); other methods go straight to COMPLETED.
 */
export function checkTransition(from: DepositStatus, to: DepositStatus, cause: TransitionCause, crypto: boolean): TransitionCheck {
  const no = (reason: string): TransitionCheck => ({ ok: false, reason });
  if (from === to) return no(`deposit is already ${from}`);
  if (from === 'COMPLETED') return no('a COMPLETED deposit never changes status');
  switch (to) {
    case 'APPROVED':
      if (!crypto) return no('only crypto deposits pass through APPROVED');
      if (from !== 'PENDING') return no(`a ${from} deposit cannot become APPROVED`);
      return cause === 'payment' ? { ok: true } : no(`APPROVED needs a payment, not ${cause}`);
    case 'COMPLETED':
      if (from === 'CANCELLED') {
        return cause === 'late_payment' ? { ok: true } : no('a CANCELLED deposit is completed only by an operator (late payment)');
      }
      if (from === 'PENDING' && crypto && cause !== 'late_payment') return no('a crypto deposit is APPROVED before it is COMPLETED');
      return cause === 'payment' || cause === 'late_payment' ? { ok: true } : no(`COMPLETED needs a payment, not ${cause}`);
    case 'CANCELLED':
      if (from !== 'PENDING') return no(`a ${from} deposit cannot be cancelled`);
      return cause === 'expiry' || cause === 'cancel' ? { ok: true } : no(`CANCELLED needs an expiry or a cancellation, not ${cause}`);
    case 'PENDING':
      return no('no deposit goes back to PENDING');
  }
}

/** The next status a payment moves a deposit to: crypto deposits stop at APPROVED first. */
export function statusAfterPayment(from: DepositStatus, crypto: boolean): DepositStatus {
  return crypto && from === 'PENDING' ? 'APPROVED' : 'COMPLETED';
}

/** Streamline `result` codes (DESIGN.md): 7 pending, 8 cancelled, 9 completed. */
export function streamlineResult(status: DepositStatus): '7' | '8' | '9' {
  return status === 'COMPLETED' ? '9' : status === 'CANCELLED' ? '8' : '7';
}
