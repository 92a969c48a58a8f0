// Merchant balances: what deposits, refunds, cashouts and operator adjustments do to them, on the
// ledger. Each function runs inside the caller's transaction.
//
//   creditDeposits(q, ctx, credits)    COMPLETED deposits: payers' money in, fees out
//   depositCreditOf(q, depositId)      that credit's gross and currency (refunds take from it)
//   adjustBalance(db, …)                operator credit or debit, recorded with who and why
//   listTransactions(q, merchantId, …) the merchant's movements, newest first, by cursor
import { type Audit, recordAudit } from '../audit/audit.ts';
import type { AppContext } from '../config/context.ts';
import type { Db, Queryable } from '../db/db.ts';
import { add, type Decimal, fromDb, neg, toDb } from '../domain/money.ts';
import { depositCredit, type DepositFigures } from '../domain/settlement.ts';
import { cajaAccount, merchantAccount, transfer, type TransferInput, transfers } from '../ledger/ledger.ts';
import { usdRate } from '../lookups/exchange-rates.ts';

export interface CreditableDeposit extends DepositFigures {
  id: number;
  merchant_id: number;
  test: boolean;
}

/**
 * Credits COMPLETED deposits, each once (a second call finds its transfer and does nothing), in
 * one ledger statement. Each names its merchant's settlement currency (the caller read it with
 * the deposit). Test deposits never touch the balance; crypto deposits pay the customer's wallet,
 * not the merchant (spec: States, Deposit), and are not given.
 */
export async function creditDeposits(q: Queryable, ctx: AppContext, credits: { deposit: CreditableDeposit; settlementCurrency: string }[], at?: Date): Promise<void> {
  const rates = new Map<string, Decimal>();
  const moves: TransferInput[] = [];
  for (const { deposit: d, settlementCurrency: currency } of credits) {
    if (d.test) continue;
    const needsRate = currency !== 'USD' && currency !== d.local_currency;
    if (needsRate && !rates.has(currency)) {
      const rate = await usdRate(q, ctx.config, currency);
      if (!rate) throw new Error(`no USD rate for settlement currency ${currency}`);
      rates.set(currency, rate);
    }
    const c = depositCredit(d, currency, needsRate ? rates.get(currency) : undefined);
    moves.push({
      merchantId: d.merchant_id, kind: 'deposit.credit', subjectType: 'deposit', subjectId: d.id, at,
      postings: [
        cajaAccount(currency, 'settlement', neg(add(c.gross, c.payerFee))),
        merchantAccount(d.merchant_id, currency, 'available', c.net),
        merchantAccount(d.merchant_id, currency, 'fees', c.merchantFees),
        cajaAccount(currency, 'fee_revenue', c.payerFee),
      ],
    });
  }
  if (moves.length > 0) await transfers(q, moves);
}

/** What a deposit credited: the net to available and the fees taken, or null if nothing. */
export async function depositCreditOf(q: Queryable, depositId: number): Promise<{ currency: string; net: Decimal; fees: Decimal } | null> {
  const { rows } = await q.query<{ currency: string; net: string | null; fees: string | null }>(
    `SELECT a.currency, sum(e.amount) FILTER (WHERE a.kind = 'available') AS net, sum(e.amount) FILTER (WHERE a.kind = 'fees') AS fees
     FROM ledger_transfers t JOIN ledger_entries e ON e.transfer_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
     WHERE t.kind = 'deposit.credit' AND t.subject_type = 'deposit' AND t.subject_id = $1 AND a.kind IN ('available', 'fees')
     GROUP BY a.currency`,
    [depositId],
  );
  const r = rows[0];
  return r ? { currency: r.currency, net: fromDb(r.net ?? '0'), fees: fromDb(r.fees ?? '0') } : null;
}

export interface Adjustment {
  merchantId: number;
  direction: 'credit' | 'debit';
  amount: Decimal;
  currency: string;
  reason: string;
  actor: string;
}

export interface AdjustmentRow {
  id: number;
  merchant_id: number;
  direction: 'credit' | 'debit';
  amount: string;
  currency: string;
  reason: string;
  actor: string;
  created_at: Date;
  transfer_id: number;
}

/** An operator's credit or debit: money from or to caja's settlement account; `audit` (who asked) is written in its transaction. */
export async function adjustBalance(db: Db, a: Adjustment, audit?: Audit<AdjustmentRow>): Promise<AdjustmentRow> {
  return db.tx(async (q) => {
    const row = await adjustBalanceIn(q, a);
    if (audit) await recordAudit(q, audit, row);
    return row;
  });
}

/** adjustBalance inside the caller's transaction (the console's four-eyes approval writes it with the decision). */
export async function adjustBalanceIn(q: Queryable, a: Adjustment): Promise<AdjustmentRow> {
  const { rows } = await q.query<Omit<AdjustmentRow, 'transfer_id'>>(
    `INSERT INTO balance_adjustments (merchant_id, direction, amount, currency, reason, actor) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [a.merchantId, a.direction, toDb(a.amount), a.currency, a.reason, a.actor],
  );
  const row = rows[0]!;
  const signed = a.direction === 'credit' ? a.amount : neg(a.amount);
  const transferId = await transfer(q, {
    merchantId: a.merchantId, kind: `adjustment.${a.direction}`, subjectType: 'adjustment', subjectId: row.id, description: a.reason,
    postings: [merchantAccount(a.merchantId, a.currency, 'available', signed), cajaAccount(a.currency, 'settlement', neg(signed))],
  });
  return { ...row, transfer_id: transferId! };
}

export interface BalanceTransaction {
  id: number;
  type: string;
  currency: string;
  /** Change of the available balance (with any debt of returned deposits: a debt.recover moves 0). */
  amount: Decimal;
  /** Change of the reserved balance. */
  reserved: Decimal;
  /** Fees charged by this movement. */
  fee: Decimal;
  source: { type: string; id: number };
  pending: boolean;
  description: string | null;
  created_at: Date;
}

/**
 * The merchant's movements, newest first; `before` is the id to continue below (the cursor).
 * Only the filters given are written, and the cursor bounds the entries too: the planner carries
 * no inequality across a join, and without it a mid-history page merge-joined every entry newer
 * than the cursor (1.8 s at 1 million deposits; docs/performance.md, "At scale").
 */
export async function listTransactions(
  q: Queryable,
  merchantId: number,
  opts: { before?: number; limit: number; currency?: string },
): Promise<{ data: BalanceTransaction[]; hasMore: boolean }> {
  const { rows } = await q.query<{
    id: number; kind: string; subject_type: string; subject_id: number; pending: boolean; description: string | null; created_at: Date;
    currency: string; available: string | null; reserved: string | null; fees: string | null;
  }>(
    `SELECT t.id, t.kind, t.subject_type, t.subject_id, t.pending, t.description, t.created_at, a.currency,
            sum(e.amount) FILTER (WHERE a.kind IN ('available', 'debt')) AS available,
            sum(e.amount) FILTER (WHERE a.kind = 'reserved') AS reserved,
            sum(e.amount) FILTER (WHERE a.kind = 'fees') AS fees
     FROM ledger_transfers t
     JOIN ledger_entries e ON e.transfer_id = t.id
     JOIN ledger_accounts a ON a.id = e.account_id AND a.merchant_key = $1
     WHERE t.merchant_id = $1${opts.before === undefined ? '' : ' AND t.id < $3 AND e.transfer_id < $3'}${opts.currency === undefined ? '' : ` AND a.currency = $${opts.before === undefined ? 3 : 4}`}
     GROUP BY t.id, a.currency
     ORDER BY t.id DESC
     LIMIT $2`,
    [merchantId, opts.limit + 1, ...(opts.before === undefined ? [] : [opts.before]), ...(opts.currency === undefined ? [] : [opts.currency])],
  );
  const zero = { units: 0n, scale: 0 };
  const data = rows.slice(0, opts.limit).map((r) => ({
    id: r.id,
    type: r.kind,
    currency: r.currency,
    amount: r.available ? fromDb(r.available) : zero,
    reserved: r.reserved ? fromDb(r.reserved) : zero,
    fee: r.fees ? fromDb(r.fees) : zero,
    source: { type: r.subject_type, id: r.subject_id },
    pending: r.pending,
    description: r.description,
    created_at: r.created_at,
  }));
  return { data, hasMore: rows.length > opts.limit };
}
