// A customer-limit rule set by an operator from the console: stored by the deposits' own
// putLimit, audited in the same transaction, and in force at once in this process.
import type { AppContext } from '../config/context.ts';
import type { LimitRule } from '../domain/limits.ts';
import { toPlainString } from '../domain/money.ts';
import { putLimit } from '../deposits/limits.ts';
import { type OpsActor, recordOpsAudit } from './audit.ts';

export async function setMerchantLimit(ctx: AppContext, rule: LimitRule, actor: OpsActor): Promise<void> {
  const v = (d: LimitRule['daily']) => (d ? toPlainString(d) : null);
  await ctx.db.tx(async (q) => {
    await putLimit(q, rule);
    await recordOpsAudit(q, {
      actor, action: 'merchant.limit', merchantId: rule.merchantId || null, subject: `limit:${rule.merchantId}:${rule.country}:${rule.paymentMethod}`,
      detail: { per_transaction: v(rule.perTransaction), daily: v(rule.daily), monthly: v(rule.monthly) }, at: ctx.now(),
    });
  });
  // Deposit creation reads the rules through the cache.
  ctx.cache.changed();
}
