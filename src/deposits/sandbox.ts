// Staging's simulated outcomes of a deposit, shared by POST /v3/sandbox/deposits/{id}/... and the
// "Simulate payment" / "Simulate cancellation" buttons of the staging payment pages: the same
// transition a real outcome would make, with the same history, ledger and notifications.
import type { AppContext } from '../config/context.ts';
import { type AuditEntry, recordAudit } from '../audit/audit.ts';
import { statusAfterPayment } from '../domain/deposit-states.ts';
import { assignMethodIn } from './checkout.ts';
import { withdrawCharge } from '../connectors/charges.ts';
import { DepositError, isCrypto, transitionDepositIn } from './service.ts';
import type { DepositRow } from './store.ts';

export type SandboxAction = 'approve' | 'cancel' | 'expire';

/**
 * Runs one sandbox action. A HOSTED deposit whose customer has not chosen a method yet is paid
 * only when the merchant names the method (`paymentMethod`); otherwise 510: completing it would
 * leave a paid deposit with no payment method and a fee charged for none.
 * `audit` (a panel user's action) is written in the transition's transaction.
 */
export function runSandboxAction(ctx: AppContext, d: DepositRow, action: SandboxAction, actor: string, paymentMethod?: string, audit?: AuditEntry): Promise<DepositRow> {
  const opts = { actor, merchantId: d.merchant_id };
  if (action === 'approve') {
    if (!d.payment_method && !paymentMethod) {
      throw new DepositError(
        'invalid_transition',
        `Deposit ${d.id} has no payment method yet: the customer has not chosen one on the hosted checkout (redirect_url), so it cannot be paid; ` +
          'or name the method the customer paid with: {"payment_method": "<code>"}',
      );
    }
    return ctx.db.tx(async (q) => {
      const current = d.payment_method ? d : await assignMethodIn(q, ctx, d.id, paymentMethod!);
      const paid = await transitionDepositIn(q, ctx, d.id, statusAfterPayment(current.status, isCrypto(current)), 'payment', opts);
      if (audit) await recordAudit(q, audit);
      return paid;
    });
  }
  return ctx.db.tx(async (q) => {
    const cancelled = await transitionDepositIn(q, ctx, d.id, 'CANCELLED', action === 'expire' ? 'expiry' : 'cancel', opts);
    if (audit) await recordAudit(q, audit);
    return cancelled;
  }).then(async (cancelled) => {
    await withdrawCharge(ctx, cancelled);
    return cancelled;
  });
}
