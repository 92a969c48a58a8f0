// Staging's simulated outcomes of a deposit, shared by POST /v3/sandbox/deposits/{id}/... and the
// "Simulate payment" / "Simulate cancellation" buttons of the staging payment pages: the same
// transition a real outcome would make, with the same history, ledger and notifications.
import type { AppContext } from '../config/context.ts';
import type { AuditEntry } from '../audit/audit.ts';
import { statusAfterPayment } from '../domain/deposit-states.ts';
import { assignMethodIn } from './checkout.ts';
import { withdrawCharge } from '../connectors/charges.ts';
import { DepositError, isCrypto, transitionDeposit, transitionDepositIn } from './service.ts';
import type { DepositRow } from './store.ts';

export type SandboxAction = 'approve' | 'cancel' | 'expire';

/** What an action reads of its deposit before the change (the change itself reads it locked). */
export type SandboxTarget = Pick<DepositRow, 'id' | 'merchant_id' | 'status' | 'country' | 'payment_method'>;

/**
 * Runs one sandbox action. A HOSTED deposit whose customer has not chosen a method yet is paid
 * only when the merchant names the method (`paymentMethod`); otherwise 510: completing it would
 * leave a paid deposit with no payment method and a fee charged for none.
 * `audit` (a panel user's action) is written in the transition's transaction.
 */
export async function runSandboxAction(ctx: AppContext, d: SandboxTarget, action: SandboxAction, actor: string, paymentMethod?: string, audit?: AuditEntry): Promise<DepositRow> {
  // A panel user's audit row is written in the change's transaction, like the change's own rows.
  const opts = { actor, merchantId: d.merchant_id, ...(audit ? { audit } : {}) };
  if (action === 'approve') {
    if (!d.payment_method && !paymentMethod) {
      throw new DepositError(
        'invalid_transition',
        `Deposit ${d.id} has no payment method yet: the customer has not chosen one on the hosted checkout (redirect_url), so it cannot be paid; ` +
          'or name the method the customer paid with: {"payment_method": "<code>"}',
      );
    }
    // The usual approval shares its transaction with concurrent ones (deposits/transitions.ts).
    if (d.payment_method) return transitionDeposit(ctx, d.id, statusAfterPayment(d.status, isCrypto(d)), 'payment', opts);
    return ctx.db.tx(async (q) => {
      const current = await assignMethodIn(q, ctx, d.id, paymentMethod!);
      return transitionDepositIn(q, ctx, d.id, statusAfterPayment(current.status, isCrypto(current)), 'payment', opts);
    });
  }
  const cancelled = await transitionDeposit(ctx, d.id, 'CANCELLED', action === 'expire' ? 'expiry' : 'cancel', opts);
  await withdrawCharge(ctx, cancelled);
  return cancelled;
}
