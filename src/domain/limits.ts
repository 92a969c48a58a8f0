// Customer limits (error 304 USER_LIMIT_EXCEEDED). Limits are configured by the operator per
// merchant (or all merchants), country (or all) and payment method (or all), in USD, as three
// optional ceilings: one deposit, a customer's deposits per UTC day, and per UTC month. A
// customer is a merchant's user_id or payer document: deposits under either count together.
import { add, cmp, type Decimal } from './money.ts';

export type LimitKind = 'TRANSACTION' | 'DAILY' | 'MONTHLY';

/** Wildcards: merchant_id 0, country '*', payment_method '*'. */
export interface LimitRule {
  merchantId: number;
  country: string;
  paymentMethod: string;
  perTransaction: Decimal | null;
  daily: Decimal | null;
  monthly: Decimal | null;
}

/** The most specific rule that applies: merchant beats country beats method. */
export function pickRule(rules: readonly LimitRule[], merchantId: number, country: string, method: string | null): LimitRule | null {
  let best: LimitRule | null = null;
  let bestScore = -1;
  for (const r of rules) {
    if (r.merchantId !== 0 && r.merchantId !== merchantId) continue;
    if (r.country !== '*' && r.country !== country) continue;
    if (r.paymentMethod !== '*' && r.paymentMethod !== method) continue;
    const score = (r.merchantId !== 0 ? 4 : 0) + (r.country !== '*' ? 2 : 0) + (r.paymentMethod !== '*' ? 1 : 0);
    if (score > bestScore) {
      best = r;
      bestScore = score;
    }
  }
  return best;
}

export interface Usage {
  /** USD already deposited (pending or completed) by the customer today and this month. */
  day: Decimal;
  month: Decimal;
}

/** The first limit the new deposit would break, or null. */
export function exceededLimit(rule: LimitRule, amountUsd: Decimal, usage: Usage): LimitKind | null {
  if (rule.perTransaction && cmp(amountUsd, rule.perTransaction) > 0) return 'TRANSACTION';
  if (rule.daily && cmp(add(usage.day, amountUsd), rule.daily) > 0) return 'DAILY';
  if (rule.monthly && cmp(add(usage.month, amountUsd), rule.monthly) > 0) return 'MONTHLY';
  return null;
}

/** Whether usage must be read at all (a rule with only a per-transaction cap needs none). */
export function needsUsage(rule: LimitRule): boolean {
  return rule.daily !== null || rule.monthly !== null;
}

/** Start of the UTC day and month containing `now`: the windows daily and monthly limits use. */
export function limitWindows(now: Date): { dayStart: Date; monthStart: Date } {
  return {
    dayStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())),
    monthStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
  };
}
