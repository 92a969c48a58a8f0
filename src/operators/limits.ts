// A customer-limit rule set by an operator (the console) or an admin token (PUT /admin/limits): stored by the deposits' own
// putLimit, audited in the same transaction, and in force at once in this process.
import type { AppContext } from '../config/context.ts';
import type { LimitRule } from '../domain/limits.ts';
import { toPlainString } from '../domain/money.ts';
import { putLimit } from '../deposits/limits.ts';
import { type OpsActor, recordOpsAudit } from './audit.ts';

/** The rule as stored; null when it had no ceiling left and was removed. */
export async function setMerchantLimit(ctx: AppContext, rule: LimitRule, actor: OpsActor): Promise<Awaited<ReturnType<typeof putLimit>>> {
  const v = (d: LimitRule['daily']) => (d ? toPlainString(d) : null);
  const saved = await ctx.db.tx(async (q) => {
    const stored = await putLimit(q, rule);
    await recordOpsAudit(q, {
      actor, action: 'merchant.limit', merchantId: rule.merchantId || null, subject: `limit:${rule.merchantId}:${rule.country}:${rule.paymentMethod}`,
      detail: { per_transaction: v(rule.perTransaction), daily: v(rule.daily), monthly: v(rule.monthly) }, at: ctx.now(),
    });
    return stored;
  });
  // Deposit creation reads the rules through the cache.
  ctx.cache.changed();
  return saved;
}
