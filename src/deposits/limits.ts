// Customer limits against the store: the configured rules (customer_limits), a per-customer
// lock so two racing deposits cannot both pass a daily limit, and the customer's usage.
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/db.ts';
import { type Decimal, fromDb, toPlainString } from '../domain/money.ts';
import { exceededLimit, type LimitKind, type LimitRule, limitWindows, needsUsage, pickRule } from '../domain/limits.ts';

export interface LimitRow {
  merchant_id: number;
  country: string;
  payment_method: string;
  per_transaction: string | null;
  daily: string | null;
  monthly: string | null;
  updated_at?: Date;
}

const toRule = (r: LimitRow): LimitRule => ({
  merchantId: r.merchant_id,
  country: r.country,
  paymentMethod: r.payment_method,
  perTransaction: r.per_transaction === null ? null : fromDb(r.per_transaction),
  daily: r.daily === null ? null : fromDb(r.daily),
  monthly: r.monthly === null ? null : fromDb(r.monthly),
});

export function limitView(r: LimitRow) {
  const n = (v: string | null) => (v === null ? null : toPlainString(fromDb(v)));
  return {
    merchant_id: r.merchant_id === 0 ? null : r.merchant_id,
    country: r.country,
    payment_method: r.payment_method,
    currency: 'USD',
    per_transaction: n(r.per_transaction),
    daily: n(r.daily),
    monthly: n(r.monthly),
  };
}

export async function listLimits(q: Queryable) {
  const { rows } = await q.query<LimitRow>('SELECT * FROM customer_limits ORDER BY merchant_id, country, payment_method');
  return rows.map(limitView);
}

/** A rule to store: the same shape as the rule the check applies. */
export type LimitInput = LimitRule;

/** Sets a rule; a rule with no ceiling at all is removed. */
export async function putLimit(q: Queryable, l: LimitInput) {
  if (!l.perTransaction && !l.daily && !l.monthly) {
    await q.query('DELETE FROM customer_limits WHERE merchant_id = $1 AND country = $2 AND payment_method = $3', [l.merchantId, l.country, l.paymentMethod]);
    return null;
  }
  const v = (d: Decimal | null) => (d ? toPlainString(d) : null);
  const { rows } = await q.query<LimitRow>(
    `INSERT INTO customer_limits (merchant_id, country, payment_method, per_transaction, daily, monthly, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, now())
     ON CONFLICT (merchant_id, country, payment_method) DO UPDATE
       SET per_transaction = EXCLUDED.per_transaction, daily = EXCLUDED.daily, monthly = EXCLUDED.monthly, updated_at = now()
     RETURNING *`,
    [l.merchantId, l.country, l.paymentMethod, v(l.perTransaction), v(l.daily), v(l.monthly)],
  );
  return limitView(rows[0]!);
}

/** A signed 64-bit advisory lock key for one customer of one merchant. */
function lockKey(text: string): string {
  return createHash('sha256').update(text).digest().readBigInt64BE(0).toString();
}

export interface LimitCheck {
  merchantId: number;
  country: string;
  paymentMethod: string | null;
  userId: string;
  document: string | undefined;
  amountUsd: Decimal;
  now: Date;
}

/** The rules that may apply to a merchant's deposits in a country (any method). */
export async function loadLimitRules(q: Queryable, merchantId: number, country: string): Promise<LimitRule[]> {
  const { rows } = await q.query<LimitRow>(
    `SELECT merchant_id, country, payment_method, per_transaction, daily, monthly FROM customer_limits
     WHERE merchant_id IN (0, $1) AND country IN ('*', $2)`,
    [merchantId, country],
  );
  return rows.map(toRule);
}

/** Rule rows as the combined pre-query of the service returns them (numerics as text). */
export function rulesFromRows(rows: LimitRow[]): LimitRule[] {
  return rows.map(toRule);
}

export function applicableRule(rules: readonly LimitRule[], c: Pick<LimitCheck, 'merchantId' | 'country' | 'paymentMethod'>): LimitRule | null {
  return pickRule(rules, c.merchantId, c.country, c.paymentMethod);
}

const NO_USAGE = { day: { units: 0n, scale: 2 }, month: { units: 0n, scale: 2 } };

/** The limit kind a deposit breaks by its amount alone (a rule without daily or monthly ceilings: no usage, no lock), or null. */
export function checkAmountOnly(rule: LimitRule, c: Pick<LimitCheck, 'amountUsd'>): LimitKind | null {
  return exceededLimit(rule, c.amountUsd, NO_USAGE);
}

/**
 * The limit kind a new deposit would exceed under `rule`, or null. Must run inside the creating
 * transaction: the customer lock it takes is held until that transaction ends, so the usage it
 * reads cannot change before the new deposit is written.
 */
export async function checkCustomerLimits(q: Queryable, rule: LimitRule, c: LimitCheck): Promise<LimitKind | null> {
  if (!needsUsage(rule)) return checkAmountOnly(rule, c);

  // Both identities are locked (in a fixed order, so two transactions never wait on each other
  // in a cycle): a customer is the same whether recognised by user_id or by document.
  const keys = [lockKey(`deposit-customer:${c.merchantId}:user:${c.userId}`)];
  if (c.document) keys.push(lockKey(`deposit-customer:${c.merchantId}:doc:${c.document}`));
  keys.sort();
  for (const k of keys) await q.query('SELECT pg_advisory_xact_lock($1::bigint)', [k]);

  const { dayStart, monthStart } = limitWindows(c.now);
  const methodFilter = rule.paymentMethod !== '*' ? 'AND payment_method = $7' : '';
  const params: unknown[] = [c.merchantId, c.country, c.userId, c.document ?? null, monthStart, dayStart];
  if (rule.paymentMethod !== '*') params.push(rule.paymentMethod);
  const { rows: usage } = await q.query<{ day: string | null; month: string | null }>(
    `SELECT COALESCE(SUM(usd_amount) FILTER (WHERE created_at >= $6), 0) AS day, COALESCE(SUM(usd_amount), 0) AS month
     FROM deposits
     WHERE merchant_id = $1 AND country = $2 AND status <> 'CANCELLED' AND created_at >= $5
       AND (user_id = $3 OR ($4::text IS NOT NULL AND payer_document = $4)) ${methodFilter}`,
    params,
  );
  return exceededLimit(rule, c.amountUsd, { day: fromDb(usage[0]?.day ?? '0'), month: fromDb(usage[0]?.month ?? '0') });
}
