// Customer limits against the store: the configured rules (customer_limits), a per-customer
// lock so two racing deposits cannot both pass a daily limit, and the customer's usage.
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/db.ts';
import { type Decimal, fromDb, toPlainString } from '../domain/money.ts';
import { exceededLimit, type LimitKind, type LimitRule, limitWindows, pickRule } from '../domain/limits.ts';

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

/** Who a customer is: a merchant's user id, and the document when there is one (either identifies them). */
function customerIdentities(c: LimitCheck): string[] {
  const ids = [`deposit-customer:${c.merchantId}:user:${c.userId}`];
  if (c.document) ids.push(`deposit-customer:${c.merchantId}:doc:${c.document}`);
  return ids;
}

/**
 * Which of several new deposits can be checked together: the first of each customer (by either
 * identity). A later one of the same customer must be checked after the earlier one is written,
 * so that the usage it reads counts it.
 */
export function firstOfEachCustomer(checks: readonly LimitCheck[]): boolean[] {
  const seen = new Set<string>();
  return checks.map((c) => {
    const ids = customerIdentities(c);
    if (ids.some((id) => seen.has(id))) return false;
    for (const id of ids) seen.add(id);
    return true;
  });
}

export interface RuleCheck {
  rule: LimitRule;
  check: LimitCheck;
}

// A customer's deposits that count towards a rule: same merchant and country, not cancelled,
// this month (and today, for the daily sum), by user id or by document, of the rule's method.
// The two identities are two index scans (deposits_user_idx, deposits_document_idx), the second
// leaving out what the first counted: as one OR the plan read all the merchant's deposits of the
// month for each customer.
const COUNTS = `d.country = u.country AND d.status <> 'CANCELLED' AND (u.method = '*' OR d.payment_method = u.method)`;
const USAGE_SQL = `
SELECT u.i, COALESCE(SUM(d.usd_amount) FILTER (WHERE d.created_at >= u.day_start), 0)::text AS day, COALESCE(SUM(d.usd_amount), 0)::text AS month
FROM unnest($1::integer[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[])
  AS u(i, merchant_id, country, user_id, document, method, month_start, day_start)
LEFT JOIN LATERAL (
  SELECT usd_amount, created_at FROM deposits d
  WHERE d.merchant_id = u.merchant_id AND d.user_id = u.user_id AND d.created_at >= u.month_start AND ${COUNTS}
  UNION ALL
  SELECT usd_amount, created_at FROM deposits d
  WHERE d.merchant_id = u.merchant_id AND d.payer_document = u.document AND d.created_at >= u.month_start
    AND d.user_id <> u.user_id AND ${COUNTS}
) d ON true
GROUP BY u.i`;

/**
 * The limit kind each new deposit would exceed under its rule (one with a daily or monthly
 * ceiling), or null; the deposits must be of different customers (firstOfEachCustomer). Must run
 * inside the transaction that writes them: every customer is locked first (all keys in one sorted
 * order, in one statement, so two transactions never wait on each other in a cycle) and the locks
 * are held until it ends, so the usage read next cannot change before the new deposits are written.
 */
export async function checkCustomerLimits(q: Queryable, items: readonly RuleCheck[]): Promise<(LimitKind | null)[]> {
  const keys = [...new Set(items.flatMap(({ check }) => customerIdentities(check)))].map(lockKey).sort();
  // count() over unnest: the locks are taken one row at a time, in the array's (sorted) order.
  await q.query('SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS k', [keys], { name: 'caja_customer_locks' });

  const windows = items.map(({ check }) => limitWindows(check.now));
  const { rows } = await q.query<{ i: number; day: string; month: string }>(USAGE_SQL, [
    items.map((_, i) => i),
    items.map(({ check }) => check.merchantId),
    items.map(({ check }) => check.country),
    items.map(({ check }) => check.userId),
    items.map(({ check }) => check.document ?? null),
    items.map(({ rule }) => rule.paymentMethod),
    windows.map((w) => w.monthStart),
    windows.map((w) => w.dayStart),
  ], { name: 'caja_customer_usage' });
  const usage = new Map(rows.map((r) => [r.i, { day: fromDb(r.day), month: fromDb(r.month) }]));
  return items.map(({ rule, check }, i) => exceededLimit(rule, check.amountUsd, usage.get(i) ?? NO_USAGE));
}
