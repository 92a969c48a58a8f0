// Staging's simulated outcomes of a deposit, shared by POST /v3/sandbox/deposits/{id}/... and the
// "Simulate payment" / "Simulate cancellation" buttons of the staging payment pages: the same
// transition a real outcome would make, with the same history, ledger and notifications.
import type { AppContext } from '../config/context.ts';
import type { AuditEntry } from '../audit/audit.ts';
import { type DepositStatus, statusAfterPayment } from '../domain/deposit-states.ts';
import { assignMethodIn } from './checkout.ts';
import { withdrawCharge } from '../connectors/charges.ts';
import { DepositError, depositNotFound, isCrypto, transitionDeposit, transitionDepositIn } from './service.ts';
import { type TransitionSubject } from './transitions.ts';
import { type DepositRow, findDeposit } from './store.ts';

export type SandboxAction = 'approve' | 'cancel' | 'expire';


/**
 * Runs one sandbox action on a merchant's deposit (another merchant's is not found). A HOSTED
 * deposit whose customer has not chosen a method yet is paid only when the merchant names the
 * method (`paymentMethod`); otherwise 510: completing it would leave a paid deposit with no
 * payment method and a fee charged for none.
 * `audit` (a panel user's action) is written in the transition's transaction.
 */
export async function runSandboxAction(
  ctx: AppContext,
  d: Pick<DepositRow, 'id' | 'merchant_id'>,
  action: SandboxAction,
  actor: string,
  paymentMethod?: string,
  audit?: AuditEntry,
): Promise<DepositRow> {
  const opts = { actor, merchantId: d.merchant_id, ...(audit ? { audit } : {}) };
  if (action === 'approve') {
    // The usual approval decides from the deposit as locked, in a transaction shared with
    // concurrent ones (deposits/transitions.ts): nothing to read before it.
    if (!paymentMethod) return transitionDeposit(ctx, d.id, paidStatus, 'payment', opts);
    return ctx.db.tx(async (q) => {
      const locked = await findDeposit(q, d.id, true);
      if (!locked || locked.merchant_id !== d.merchant_id) throw depositNotFound();
      const current = locked.payment_method ? locked : await assignMethodIn(q, ctx, d.id, paymentMethod);
      return transitionDepositIn(q, ctx, d.id, statusAfterPayment(current.status, isCrypto(current)), 'payment', opts);
    });
  }
  const cancelled = await transitionDeposit(ctx, d.id, 'CANCELLED', action === 'expire' ? 'expiry' : 'cancel', opts);
  await withdrawCharge(ctx, cancelled);
  return cancelled;
}

/** Where a payment takes a deposit: crypto deposits stop at APPROVED; one without a method cannot be paid. */
function paidStatus(d: TransitionSubject): DepositStatus | DepositError {
  if (d.payment_method) return statusAfterPayment(d.status, isCrypto(d));
  return new DepositError(
    'invalid_transition',
    `Deposit ${d.id} has no payment method yet: the customer has not chosen one on the hosted checkout (redirect_url), so it cannot be paid; ` +
      'or name the method the customer paid with: {"payment_method": "<code>"}',
  );
}
