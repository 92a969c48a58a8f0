// Bank-initiated returns: money a payer's bank takes back from a deposit after caja credited it,
// without the merchant asking (a Pix MED devolução, a SPEI abono the ordering bank takes back, a
// card chargeback). One object for all of them: the deposit_returns row (migration 063).
//
//   recordReturn(q, ctx, r)            records a return once per (provider, providerReturnId),
//                                      against the deposit it names: the deposit's share of what
//                                      its credit brought in leaves the merchant's balance in one
//                                      ledger transfer ('deposit_return.debit'), an event
//                                      'deposit.returned' and the merchant's deposit notification
//                                      go out in the same transaction. A return naming no deposit
//                                      caja knows is kept as 'unmatched' for the operator.
//   reverseReturn(q, id, reason)       the provider gave the money back (a chargeback won, a MED
//                                      contested): the debit is undone ('deposit_return.reverse'),
//                                      paying the merchant's debt first; a chargeback's fee is kept
//                                      (it paid for the dispute, won or lost: dLocal's practice)
//   recoverDebt(q, merchantId, cur)    pays the merchant's debt from its available balance
//   recoverDebts(db)                   the same for every merchant with a debt and money (worker)
//   debtOf(q, merchantId, cur)         what the merchant owes (zero or positive)
//
// The debit takes from the available balance what it holds (its row locked, so no cashout or
// refund spends it meanwhile) and puts the rest on the merchant's `debt` account (never above
// zero): the balance the merchant sees is available + debt, below zero while a debt is owed, and
// later credits pay it back (recoverDebt, run by the balance fold worker and by every cashout
// before it reserves; cashouts are refused while a debt remains).
import type { AppContext } from '../config/context.ts';
import type { Db, Queryable } from '../db/db.ts';
import { add, cmp, type Decimal, fromDb, isPositive, min, neg, sub, toDb, toFixed } from '../domain/money.ts';
import { refundDebit, usdFeeIn } from '../domain/settlement.ts';
import { usdRate } from '../lookups/exchange-rates.ts';
import { cajaAccount, merchantAccount, transfer } from '../ledger/ledger.ts';
import { recordEvent } from '../notifications/outbox.ts';
import { depositNotifications } from './notifications.ts';
import type { DepositRow } from './store.ts';

export type ReturnKind = 'med' | 'spei_return' | 'chargeback';
export type ReturnStatus = 'applied' | 'reversed' | 'unmatched';

export interface NewReturn {
  provider: string;
  /** The provider's id of the return (Pix devolução rtrId, STP return id, PSP reference). */
  providerReturnId: string;
  /** The provider's id of the payment it returns (Pix e2eid, STP clave de rastreo), when known. */
  paymentId: string | null;
  /** The deposit it returns, as the caller matched it; null when none matched (an operator exception). */
  depositId: number | null;
  kind: ReturnKind;
  /** The provider's code: Pix natureza, STP causa, chargeback reason code. */
  reason: string;
  description?: string | null;
  /** What the provider took back, in the payment's currency. */
  amount: Decimal;
  currency: string;
  /**
   * A fee charged to the merchant on top (the chargeback fee), in USD; null when none. It is taken
   * in the settlement currency of the deposit's credit, converted as the credit was
   * (domain/settlement.ts usdFeeIn), in the same transfer as the debit, and booked as a fee (the
   * merchant's `fees` account: balance movements and settlement reports show it in their fee column).
   */
  feeUsd?: Decimal | null;
  deadlineAt?: Date | null;
  returnedAt?: Date | null;
  via: 'webhook' | 'poll' | 'read' | 'statement' | 'callback' | 'operator';
  raw?: unknown;
  /** Fields the deposit's v3 notification carries beside deposit_id (a chargeback: its dispute). */
  notify?: Record<string, unknown>;
}

export interface DepositReturnRow {
  id: number;
  merchant_id: number | null;
  deposit_id: number | null;
  provider: string;
  provider_return_id: string;
  payment_id: string | null;
  kind: ReturnKind;
  reason: string;
  description: string | null;
  amount: string;
  currency: string;
  fee: string | null;
  debit: string | null;
  debit_currency: string | null;
  status: ReturnStatus;
  deadline_at: Date | null;
  returned_at: Date | null;
  seen_via: string;
  created_at: Date;
  reversed_at: Date | null;
  reversed_reason: string | null;
}

export type Recorded = { status: 'recorded' | 'duplicate' | 'unmatched'; row: DepositReturnRow };

const zero = (scale = 2): Decimal => ({ units: 0n, scale });

/** The part of a debit the available balance covers, and the rest (owed as debt). */
export function splitDebit(total: Decimal, available: Decimal): { covered: Decimal; owed: Decimal } {
  const covered = isPositive(available) ? min(available, total) : zero(total.scale);
  return { covered, owed: sub(total, covered) };
}

/** How much of a debt later money pays: all of the money up to the debt (debt is ≤ 0). */
export function recoverable(available: Decimal, debt: Decimal): Decimal {
  if (!isPositive(available) || !isPositive(neg(debt))) return zero();
  return min(available, neg(debt));
}

/**
 * Locks the merchant's available account of `currency` (the row a debit of it locks) and reads
 * its balance and the debt's. Every writer of a debt (a return, a recovery, a reversal) takes this
 * lock first, so they are one at a time per merchant and currency.
 */
async function lockBalances(q: Queryable, merchantId: number, currency: string): Promise<{ available: Decimal; debt: Decimal }> {
  await q.query(`SELECT 1 FROM ledger_accounts WHERE merchant_key = $1 AND currency = $2 AND kind = 'available' FOR NO KEY UPDATE`, [merchantId, currency]);
  const { rows } = await q.query<{ kind: string; balance: string }>(
    `SELECT kind, balance::text AS balance FROM ledger_balances WHERE merchant_key = $1 AND currency = $2 AND kind IN ('available', 'debt')`,
    [merchantId, currency],
  );
  const of = (k: string) => fromDb(rows.find((r) => r.kind === k)?.balance ?? '0');
  return { available: of('available'), debt: of('debt') };
}

/** What the merchant owes in `currency` (zero or positive). */
export async function debtOf(q: Queryable, merchantId: number, currency: string): Promise<Decimal> {
  const { rows } = await q.query<{ balance: string }>(
    `SELECT balance::text AS balance FROM ledger_balances WHERE merchant_key = $1 AND currency = $2 AND kind = 'debt'`,
    [merchantId, currency],
  );
  return neg(fromDb(rows[0]?.balance ?? '0'));
}

/** Pays the merchant's debt in `currency` from its available balance; returns what it paid. */
export async function recoverDebt(q: Queryable, merchantId: number, currency: string): Promise<Decimal> {
  const { available, debt } = await lockBalances(q, merchantId, currency);
  const amount = recoverable(available, debt);
  if (!isPositive(amount)) return zero();
  const { rows } = await q.query<{ id: number }>(
    'INSERT INTO debt_recoveries (merchant_id, currency, amount) VALUES ($1, $2, $3) RETURNING id',
    [merchantId, currency, toDb(amount)],
  );
  await transfer(q, {
    merchantId, kind: 'debt.recover', subjectType: 'debt_recovery', subjectId: rows[0]!.id,
    description: 'debt of returned deposits paid from the balance',
    postings: [merchantAccount(merchantId, currency, 'available', neg(amount)), merchantAccount(merchantId, currency, 'debt', amount)],
  });
  return amount;
}

/** One pass: every merchant and currency with a debt and an available balance pays what it can. */
export async function recoverDebts(db: Db): Promise<number> {
  const { rows } = await db.query<{ merchant_key: number; currency: string }>(
    `SELECT d.merchant_key, d.currency FROM ledger_balances d
     JOIN ledger_balances a ON a.merchant_key = d.merchant_key AND a.currency = d.currency AND a.kind = 'available'
     WHERE d.kind = 'debt' AND d.balance < 0 AND a.balance > 0 ORDER BY 1, 2 LIMIT 500`,
  );
  let n = 0;
  for (const r of rows) {
    const paid = await db.tx((q) => recoverDebt(q, r.merchant_key, r.currency));
    if (isPositive(paid)) n++;
  }
  return n;
}

/** The money the deposit's credit brought in (gross and the payer's fee), in its settlement currency. */
async function creditIn(q: Queryable, depositId: number): Promise<{ currency: string; total: Decimal } | null> {
  const { rows } = await q.query<{ currency: string; total: string }>(
    `SELECT a.currency, (-sum(e.amount))::text AS total
     FROM ledger_transfers t JOIN ledger_entries e ON e.transfer_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
     WHERE t.kind = 'deposit.credit' AND t.subject_type = 'deposit' AND t.subject_id = $1 AND a.kind = 'settlement'
     GROUP BY a.currency`,
    [depositId],
  );
  return rows[0] ? { currency: rows[0].currency, total: fromDb(rows[0].total) } : null;
}

const RETURN_COLUMNS = `id, merchant_id, deposit_id, provider, provider_return_id, payment_id, kind, reason, description, amount::text AS amount,
  currency, fee::text AS fee, debit::text AS debit, debit_currency, status, deadline_at, returned_at, seen_via, created_at, reversed_at, reversed_reason`;

/**
 * Records a return once. The deposit (when named) is locked; the return's share of the deposit's
 * credit (its amount over the payer's amount, the last return taking what is left, as refunds
 * do) leaves the balance with the fee, if any. A deposit that credited nothing (a test deposit)
 * gives nothing; one that is not COMPLETED is recorded unmatched (money caja never credited).
 */
export async function recordReturn(q: Queryable, ctx: AppContext, r: NewReturn): Promise<Recorded> {
  const existing = await q.query<DepositReturnRow>(`SELECT ${RETURN_COLUMNS} FROM deposit_returns WHERE provider = $1 AND provider_return_id = $2`, [r.provider, r.providerReturnId]);
  if (existing.rows[0]) return { status: 'duplicate', row: existing.rows[0] };
  const d = r.depositId === null
    ? null
    : (await q.query<DepositRow & { merchant_notification_url: string | null }>(
        `SELECT d.*, m.notification_url AS merchant_notification_url FROM deposits d JOIN merchants m ON m.id = d.merchant_id WHERE d.id = $1 FOR UPDATE OF d`,
        [r.depositId],
      )).rows[0] ?? null;
  const matched = d !== null && d.status === 'COMPLETED';
  const insert = await q.query<DepositReturnRow>(
    `INSERT INTO deposit_returns (merchant_id, deposit_id, provider, provider_return_id, payment_id, kind, reason, description, amount, currency, fee,
       status, deadline_at, returned_at, seen_via, raw)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     ON CONFLICT (provider, provider_return_id) DO NOTHING RETURNING ${RETURN_COLUMNS}`,
    [matched ? d.merchant_id : (d?.merchant_id ?? null), matched ? d.id : null, r.provider, r.providerReturnId, r.paymentId, r.kind, r.reason,
      r.description ?? (d && !matched ? `deposit ${d.id} is ${d.status}` : null), toDb(r.amount), r.currency, null,
      matched ? 'applied' : 'unmatched', r.deadlineAt ?? null, r.returnedAt ?? null, r.via, r.raw === undefined ? null : JSON.stringify(r.raw)],
  );
  // A concurrent recording of the same return committed first (this insert waited for it).
  if (!insert.rows[0]) {
    const again = await q.query<DepositReturnRow>(`SELECT ${RETURN_COLUMNS} FROM deposit_returns WHERE provider = $1 AND provider_return_id = $2`, [r.provider, r.providerReturnId]);
    return { status: 'duplicate', row: again.rows[0]! };
  }
  let row = insert.rows[0];
  if (!matched) return { status: 'unmatched', row };

  const credit = await creditIn(q, d.id);
  const before = (await q.query<{ amount: string; debit: string }>(
    `SELECT coalesce(sum(amount), 0)::text AS amount, coalesce(sum(debit), 0)::text AS debit FROM deposit_returns
     WHERE deposit_id = $1 AND status = 'applied' AND id <> $2`,
    [d.id, row.id],
  )).rows[0]!;
  if (credit) {
    const payerAmount = fromDb(d.payer_amount);
    // Never more than the payer paid: a return beyond it takes what is left of the credit.
    const amount = cmp(add(fromDb(before.amount), r.amount), payerAmount) > 0 ? sub(payerAmount, fromDb(before.amount)) : r.amount;
    const debit = isPositive(amount) ? refundDebit(amount, payerAmount, credit.total, fromDb(before.amount), fromDb(before.debit)) : zero(credit.total.scale);
    const fee = r.feeUsd && isPositive(r.feeUsd) ? await feeIn(q, ctx, r.feeUsd, credit.currency, d) : zero(credit.total.scale);
    const total = add(debit, fee);
    if (isPositive(total)) {
      const { available } = await lockBalances(q, d.merchant_id, credit.currency);
      const { covered, owed } = splitDebit(total, available);
      await transfer(q, {
        merchantId: d.merchant_id, kind: 'deposit_return.debit', subjectType: 'deposit_return', subjectId: row.id,
        description: `${r.kind} ${r.reason} of deposit ${d.id}`,
        postings: [
          merchantAccount(d.merchant_id, credit.currency, 'available', neg(covered)),
          merchantAccount(d.merchant_id, credit.currency, 'debt', neg(owed)),
          cajaAccount(credit.currency, 'settlement', debit),
          merchantAccount(d.merchant_id, credit.currency, 'fees', fee),
        ],
      });
    }
    row = (await q.query<DepositReturnRow>(`UPDATE deposit_returns SET debit = $2, debit_currency = $3, fee = $4 WHERE id = $1 RETURNING ${RETURN_COLUMNS}`,
      [row.id, toDb(debit), credit.currency, isPositive(fee) ? toDb(fee) : null])).rows[0]!;
  }
  const { rows: [dep] } = await q.query<DepositRow>(
    'UPDATE deposits SET returned_amount = returned_amount + $2, updated_at = now() WHERE id = $1 RETURNING *',
    [d.id, row.amount],
  );
  await recordEvent(q, {
    merchantId: d.merchant_id, type: 'deposit.returned', subjectType: 'deposit', subjectId: d.id,
    data: {
      deposit_id: d.id, return_id: row.id, kind: row.kind, reason: row.reason, amount: toFixed(fromDb(row.amount), 2), currency: row.currency,
      ...(row.fee !== null ? { fee: row.fee, fee_currency: row.debit_currency } : {}),
      returned_amount: toFixed(fromDb(dep!.returned_amount), 2), return_status: returnStatusOf(dep!),
    },
    notifications: await depositNotifications(q, ctx, dep!, d.merchant_notification_url, r.notify),
  });
  return { status: 'recorded', row };
}

/** A USD fee in the credit's currency, as the deposit's credit was valued. */
async function feeIn(q: Queryable, ctx: AppContext, feeUsd: Decimal, currency: string, d: DepositRow): Promise<Decimal> {
  const needsRate = currency !== 'USD' && currency !== d.local_currency;
  const rate = needsRate ? await usdRate(q, ctx.config, currency) : undefined;
  if (needsRate && !rate) throw new Error(`no USD rate for settlement currency ${currency}`);
  return usdFeeIn(feeUsd, currency, d, rate ?? undefined);
}

/** What the deposit shows: null (nothing returned), PARTIALLY_RETURNED or RETURNED (the whole payer amount). */
export function returnStatusOf(d: { returned_amount: string; payer_amount: string }): 'PARTIALLY_RETURNED' | 'RETURNED' | null {
  const returned = fromDb(d.returned_amount);
  if (!isPositive(returned)) return null;
  return cmp(returned, fromDb(d.payer_amount)) >= 0 ? 'RETURNED' : 'PARTIALLY_RETURNED';
}

export class ReturnError extends Error {
  constructor(readonly kind: 'not_found' | 'not_applied', message: string) {
    super(message);
  }
}

/**
 * The provider gave the money back: the return's debit is undone, into the merchant's debt first
 * and the rest to available; the deposit's returned amount goes down. A chargeback's fee is not
 * given back (the dispute was handled, won or lost); any other return's fee is. Once: a reversed
 * return cannot be reversed again (ReturnError 'not_applied').
 */
export async function reverseReturn(q: Queryable, id: number, reason: string, notify?: { ctx: AppContext; extra?: Record<string, unknown> }): Promise<DepositReturnRow> {
  const { rows } = await q.query<DepositReturnRow>(`SELECT ${RETURN_COLUMNS} FROM deposit_returns WHERE id = $1 FOR UPDATE`, [id]);
  const row = rows[0];
  if (!row) throw new ReturnError('not_found', `Return ${id} not found`);
  if (row.status !== 'applied') throw new ReturnError('not_applied', `Return ${id} is ${row.status}`);
  const merchantId = row.merchant_id!;
  if (row.debit !== null && row.debit_currency !== null) {
    const debit = fromDb(row.debit);
    const fee = row.fee && row.kind !== 'chargeback' ? fromDb(row.fee) : zero();
    const total = add(debit, fee);
    if (isPositive(total)) {
      const { debt } = await lockBalances(q, merchantId, row.debit_currency);
      const toDebt = min(total, neg(debt));
      const toDebtPos = isPositive(toDebt) ? toDebt : zero();
      await transfer(q, {
        merchantId, kind: 'deposit_return.reverse', subjectType: 'deposit_return', subjectId: row.id, description: reason,
        postings: [
          merchantAccount(merchantId, row.debit_currency, 'debt', toDebtPos),
          merchantAccount(merchantId, row.debit_currency, 'available', sub(total, toDebtPos)),
          cajaAccount(row.debit_currency, 'settlement', neg(debit)),
          merchantAccount(merchantId, row.debit_currency, 'fees', neg(fee)),
        ],
      });
    }
  }
  const { rows: [dep] } = await q.query<DepositRow>('UPDATE deposits SET returned_amount = returned_amount - $2, updated_at = now() WHERE id = $1 RETURNING *', [row.deposit_id, row.amount]);
  const url = notify && dep ? (await q.query<{ notification_url: string | null }>('SELECT notification_url FROM merchants WHERE id = $1', [merchantId])).rows[0]?.notification_url ?? null : null;
  const { rows: [done] } = await q.query<DepositReturnRow>(
    `UPDATE deposit_returns SET status = 'reversed', reversed_at = now(), reversed_reason = $2 WHERE id = $1 RETURNING ${RETURN_COLUMNS}`,
    [id, reason],
  );
  await recordEvent(q, {
    merchantId, type: 'deposit.return_reversed', subjectType: 'deposit', subjectId: row.deposit_id!,
    data: { deposit_id: row.deposit_id, return_id: row.id, kind: row.kind, amount: toFixed(fromDb(row.amount), 2), currency: row.currency },
    // The merchant's deposit notification, when the caller asks (a chargeback reversed: its dispute).
    ...(notify && dep ? { notifications: await depositNotifications(q, notify.ctx, dep, url, notify.extra) } : {}),
  });
  return done!;
}

/** The applied and reversed returns of a deposit, oldest first. */
export async function returnsOfDeposit(q: Queryable, depositId: number): Promise<DepositReturnRow[]> {
  return (await q.query<DepositReturnRow>(`SELECT ${RETURN_COLUMNS} FROM deposit_returns WHERE deposit_id = $1 ORDER BY id`, [depositId])).rows;
}

/** Returns for the console, newest first: all, or of one status ('unmatched': those caja could not match, operator exceptions). */
export async function listReturns(q: Queryable, o: { status?: ReturnStatus; limit?: number; merchantId?: number } = {}): Promise<DepositReturnRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (o.status) { params.push(o.status); where.push(`status = $${params.length}`); }
  if (o.merchantId !== undefined) { params.push(o.merchantId); where.push(`merchant_id = $${params.length}`); }
  params.push(Math.min(o.limit ?? 100, 500));
  return (await q.query<DepositReturnRow>(
    `SELECT ${RETURN_COLUMNS} FROM deposit_returns ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
    params,
  )).rows;
}
