// The double-entry ledger: the only writer of ledger_accounts, ledger_transfers and
// ledger_entries. Features call it inside their own transaction, beside the state change that
// moves the money, so a movement exists exactly when its cause committed.
//
//   transfer(q, t)            one balanced transfer; null when this (kind, subject) already moved
//   transfers(q, ts)          many in one statement (a batch of deposit completions)
//   transferCtes(ts, …)       the same as CTEs, for a caller's statement that writes its subject
//                             and moves its money at once (cashout creation)
//   reserve(q, r)             two-phase, phase one: available → reserved, pending
//   post(q, res, kind)        phase two: reserved → caja's settlement (the money left)
//   voidReservation(q, ...)   phase two: reserved → available (the money stays)
//   findReservation(q, ...)   a subject's reservation and whether it is resolved
//   merchantBalances(q, id)   per currency available (with any debt: below zero while owed), reserved, fees
//   foldDeltas(db)            folds a batch of accounts' balance deltas into their rows
//   foldAllDeltas(db)         every account's, vacuuming the deltas' table every 10,000 folded (worker)
//
// Amounts are signed Decimals; an account's balance is the sum of its entries, read from the
// ledger_balances view (the account's row plus its unfolded deltas, migration 034). A transfer
// that would take an `available` balance below zero fails with InsufficientFunds (a database
// CHECK enforces it on the row, which such a debit locks and folds first, so no race can get past
// it); credits lock nothing.
import { type Db, type Queryable, violatesConstraint } from '../db/db.ts';
import { add, type Decimal, fromDb, isZero, neg, toDb } from '../domain/money.ts';

export type AccountKind = 'available' | 'reserved' | 'fees' | 'debt' | 'settlement' | 'fee_revenue' | BankSideKind;
/** caja's accounts of the bank side (reconciliation): see bankAccount and cajaAccount. */
export type BankSideKind = 'bank' | 'bank_fees' | 'bank_adjustments' | 'bank_unapplied';
export type LedgerSubject = 'deposit' | 'refund' | 'cashout' | 'adjustment' | 'bank_entry' | 'bank_account' | 'deposit_return' | 'debt_recovery';

export interface Posting {
  /** null: one of caja's own accounts (settlement, fee_revenue). */
  merchantId: number | null;
  currency: string;
  kind: AccountKind;
  /** Signed: positive adds to the account. */
  amount: Decimal;
  /** The bank account (bank_accounts.id) of a `bank` account; absent for every other kind. */
  bankAccountId?: number;
}

export interface TransferInput {
  merchantId: number | null;
  /** What kind of movement, e.g. 'deposit.credit', 'cashout.reserve'. Unique per subject. */
  kind: string;
  subjectType: LedgerSubject;
  subjectId: number;
  postings: Posting[];
  pending?: boolean;
  /** The reservation this transfer posts or voids. */
  resolves?: number;
  description?: string;
  at?: Date;
}

export class InsufficientFunds extends Error {
  constructor() {
    super('Insufficient funds in the available balance');
  }
}

export class UnbalancedTransfer extends Error {}

export const merchantAccount = (merchantId: number, currency: string, kind: 'available' | 'reserved' | 'fees' | 'debt', amount: Decimal): Posting => ({
  merchantId, currency, kind, amount,
});
export const cajaAccount = (currency: string, kind: 'settlement' | 'fee_revenue' | Exclude<BankSideKind, 'bank'>, amount: Decimal): Posting => ({
  merchantId: null, currency, kind, amount,
});
/** The money at one of the operator's bank accounts (one ledger account per bank account and currency). */
export const bankAccount = (bankAccountId: number, currency: string, amount: Decimal): Posting => ({
  merchantId: null, currency, kind: 'bank', amount, bankAccountId,
});

/** Postings of one transfer must sum to zero in each currency; zero postings are dropped. */
export function checkBalanced(postings: Posting[]): Posting[] {
  const sums = new Map<string, Decimal>();
  for (const p of postings) sums.set(p.currency, add(sums.get(p.currency) ?? { units: 0n, scale: 0 }, p.amount));
  for (const [currency, total] of sums) {
    if (!isZero(total)) throw new UnbalancedTransfer(`postings in ${currency} sum to ${toDb(total)}, not 0`);
  }
  return postings.filter((p) => !isZero(p.amount));
}

/**
 * The CTEs that write transfers: the transfer rows (each skipped when its (kind, subject) exists),
 * their accounts, and their entries, whose insert trigger moves each account's balance (migration
 * 034: a debit of an available balance locks and updates its row; every other entry appends a
 * delta and locks nothing, so concurrent completions, even of one merchant, do not queue on a
 * row). Accounts that exist are read, not locked; a missing one (the first transfer of a new
 * merchant or currency) is created by ledger_account_id (migration 034), in a fixed order, without
 * locking it either: it sees an account a concurrent transfer created after this statement's
 * snapshot. (ON CONFLICT DO UPDATE, as before, locked the account until commit, and completions
 * racing to create one queued behind each other.)
 * Many transfers go in one statement (a batch of completions: src/deposits/transitions.ts); `lt`
 * returns the id and position (`n`, from 1) of each one written.
 * `subjectSql`, with a single transfer, is the SQL of its subject id: an expression over an earlier
 * CTE of a caller's statement (a cashout inserted and reserved in one statement); without it each
 * transfer's own subjectId is used. Parameters are numbered from `first`.
 */
export function transferCtes(ts: (Omit<TransferInput, 'subjectId'> & { subjectId?: number })[], first: number, subjectSql?: string): { sql: string; params: unknown[] } {
  if (subjectSql !== undefined && ts.length !== 1) throw new Error('transferCtes: a subject expression names one transfer');
  const postings = ts.map((t) => checkBalanced(t.postings));
  const $ = (i: number) => `$${first + i}`;
  const subject = subjectSql ?? 't.subject_id';
  // Ids are taken in the order of n (ORDER BY below), and each (kind, subject) is unique: the
  // join back to the input gives each written transfer its position.
  const sql = `
lt_in AS (
  SELECT * FROM unnest(${$(0)}::integer[], ${$(1)}::text[], ${$(2)}::text[], ${$(3)}::integer[], ${$(4)}::boolean[], ${$(5)}::bigint[], ${$(6)}::text[], ${$(7)}::timestamptz[])
    WITH ORDINALITY AS t(merchant_id, kind, subject_type, subject_id, pending, resolves, description, created_at, n)
), lt AS (
  INSERT INTO ledger_transfers (merchant_id, kind, subject_type, subject_id, pending, resolves, description, created_at)
  SELECT t.merchant_id, t.kind, t.subject_type, ${subject}, t.pending, t.resolves, t.description, t.created_at
  FROM lt_in t WHERE ${subject} IS NOT NULL ORDER BY t.n
  ON CONFLICT DO NOTHING
  RETURNING id, kind, subject_type, subject_id
), ltn AS (
  SELECT lt.id, t.n FROM lt JOIN lt_in t ON (t.kind, t.subject_type) = (lt.kind, lt.subject_type)${subjectSql === undefined ? ' AND t.subject_id = lt.subject_id' : ''}
), lp AS (
  SELECT * FROM unnest(${$(8)}::bigint[], ${$(9)}::integer[], ${$(10)}::text[], ${$(11)}::text[], ${$(12)}::numeric[], ${$(13)}::integer[]) AS p(n, merchant_key, currency, kind, amount, bank_key)
), lk AS (
  SELECT acc.id, acc.merchant_key, acc.currency, acc.kind, acc.bank_key FROM ledger_accounts acc
  WHERE (acc.merchant_key, acc.currency, acc.kind, acc.bank_key) IN (SELECT merchant_key, currency, kind, bank_key FROM lp)
), la AS (
  SELECT * FROM lk
  UNION ALL
  SELECT ledger_account_id(n.merchant_key, n.currency, n.kind, n.bank_key), n.merchant_key, n.currency, n.kind, n.bank_key
  FROM (SELECT DISTINCT merchant_key, currency, kind, bank_key FROM lp
        WHERE lp.n IN (SELECT n FROM ltn) AND NOT EXISTS (SELECT 1 FROM lk WHERE (lk.merchant_key, lk.currency, lk.kind, lk.bank_key) = (lp.merchant_key, lp.currency, lp.kind, lp.bank_key))
        ORDER BY merchant_key, currency, kind, bank_key) n
), le AS (
  INSERT INTO ledger_entries (transfer_id, account_id, amount)
  SELECT ltn.id, la.id, lp.amount FROM ltn JOIN lp USING (n) JOIN la USING (merchant_key, currency, kind, bank_key)
  ORDER BY ltn.n
)`;
  const flat = postings.flatMap((ps, k) => ps.map((p) => ({ n: k + 1, p })));
  const params = [
    ts.map((t) => t.merchantId), ts.map((t) => t.kind), ts.map((t) => t.subjectType), ts.map((t) => t.subjectId ?? null),
    ts.map((t) => t.pending ?? false), ts.map((t) => t.resolves ?? null), ts.map((t) => t.description ?? null), ts.map((t) => t.at ?? new Date()),
    flat.map((f) => f.n), flat.map((f) => f.p.merchantId ?? 0), flat.map((f) => f.p.currency), flat.map((f) => f.p.kind), flat.map((f) => toDb(f.p.amount)),
    flat.map((f) => f.p.bankAccountId ?? 0),
  ];
  return { sql, params };
}

/** True when a statement failed because an available balance would have gone below zero. */
export function isInsufficientFunds(err: unknown): boolean {
  return violatesConstraint(err, '23514', 'ledger_available_not_negative');
}

/**
 * Writes one balanced transfer inside the caller's transaction. Returns its id, or null when a
 * transfer of this kind for this subject already exists (the movement happened once already).
 * Throws InsufficientFunds when an available balance would go below zero; the caller's
 * transaction is then aborted and must roll back.
 */
export async function transfer(q: Queryable, t: TransferInput): Promise<number | null> {
  return (await transfers(q, [t]))[0]!;
}

/**
 * Many balanced transfers in one statement (each as transfer() writes it): their ids in order,
 * null for one whose (kind, subject) already moved or whose postings are all zero.
 */
export async function transfers(q: Queryable, ts: TransferInput[]): Promise<(number | null)[]> {
  // A (kind, subject) named twice moves once: the first one.
  const seen = new Set<string>();
  const moving = ts.filter((t) => {
    const key = `${t.kind}|${t.subjectType}|${t.subjectId}`;
    if (seen.has(key) || checkBalanced(t.postings).length === 0) return false;
    seen.add(key);
    return true;
  });
  if (moving.length === 0) return ts.map(() => null);
  const { sql, params } = transferCtes(moving, 1);
  let rows: { id: number; n: number }[];
  try {
    ({ rows } = await q.query<{ id: number; n: number }>(`WITH ${sql} SELECT id, n FROM ltn`, params, { name: 'caja_ledger_transfers' }));
  } catch (err) {
    if (isInsufficientFunds(err)) throw new InsufficientFunds();
    throw err;
  }
  const byN = new Map(rows.map((r) => [Number(r.n), r.id]));
  const written = new Map(moving.map((t, k) => [t, byN.get(k + 1) ?? null]));
  return ts.map((t) => written.get(t) ?? null);
}

/** The postings of a reservation: the amount leaves available for reserved. */
export function reservationPostings(merchantId: number, currency: string, amount: Decimal): Posting[] {
  return [merchantAccount(merchantId, currency, 'available', neg(amount)), merchantAccount(merchantId, currency, 'reserved', amount)];
}

export interface ReserveInput {
  merchantId: number;
  currency: string;
  amount: Decimal;
  kind: string;
  subjectType: LedgerSubject;
  subjectId: number;
  description?: string;
  at?: Date;
}

/** Phase one: the amount leaves available for reserved, where it waits for post or void. */
export function reserve(q: Queryable, r: ReserveInput): Promise<number | null> {
  return transfer(q, {
    merchantId: r.merchantId, kind: r.kind, subjectType: r.subjectType, subjectId: r.subjectId, pending: true,
    description: r.description, at: r.at,
    postings: reservationPostings(r.merchantId, r.currency, r.amount),
  });
}

export interface Reservation {
  id: number;
  merchantId: number;
  currency: string;
  amount: Decimal;
  subjectType: LedgerSubject;
  subjectId: number;
  /** The kind of the transfer that resolved it ('cashout.post', 'refund.void', …), or null while pending. */
  resolvedBy: string | null;
}

/** The pending transfer of `kind` for a subject, with how it was resolved. */
export async function findReservation(q: Queryable, kind: string, subjectType: LedgerSubject, subjectId: number): Promise<Reservation | null> {
  const { rows } = await q.query<{ id: number; merchant_id: number; currency: string; amount: string; resolved_by: string | null }>(
    `SELECT t.id, t.merchant_id, a.currency, e.amount,
            (SELECT r.kind FROM ledger_transfers r WHERE r.resolves = t.id) AS resolved_by
     FROM ledger_transfers t
     JOIN ledger_entries e ON e.transfer_id = t.id
     JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'reserved'
     WHERE t.kind = $1 AND t.subject_type = $2 AND t.subject_id = $3 AND t.pending`,
    [kind, subjectType, subjectId],
  );
  const r = rows[0];
  return r ? { id: r.id, merchantId: r.merchant_id, currency: r.currency, amount: fromDb(r.amount), subjectType, subjectId, resolvedBy: r.resolved_by } : null;
}

/**
 * Phase two, money out: reserved → caja's settlement. `feeReturned` also gives back, from the
 * merchant's fees account, fees charged on what is leaving (a refund returns the deposit's fee
 * share with it). Null when the reservation is already resolved either way (ON CONFLICT DO
 * NOTHING covers the unique index on `resolves` too).
 */
export function post(q: Queryable, res: Reservation, kind: string, feeReturned?: Decimal, at?: Date): Promise<number | null> {
  const fee = feeReturned ?? { units: 0n, scale: 0 };
  return transfer(q, {
    merchantId: res.merchantId, kind, subjectType: res.subjectType, subjectId: res.subjectId, resolves: res.id, at,
    postings: [
      merchantAccount(res.merchantId, res.currency, 'reserved', neg(res.amount)),
      merchantAccount(res.merchantId, res.currency, 'fees', neg(fee)),
      cajaAccount(res.currency, 'settlement', add(res.amount, fee)),
    ],
  });
}

/** Phase two, money stays: reserved → available. Null when already resolved. */
export function voidReservation(q: Queryable, res: Reservation, kind: string, at?: Date): Promise<number | null> {
  return transfer(q, {
    merchantId: res.merchantId, kind, subjectType: res.subjectType, subjectId: res.subjectId, resolves: res.id, at,
    postings: [merchantAccount(res.merchantId, res.currency, 'reserved', neg(res.amount)), merchantAccount(res.merchantId, res.currency, 'available', res.amount)],
  });
}

export interface MerchantBalance {
  currency: string;
  available: Decimal;
  reserved: Decimal;
  fees: Decimal;
}

export async function merchantBalances(q: Queryable, merchantId: number): Promise<MerchantBalance[]> {
  const { rows } = await q.query<{ currency: string; kind: AccountKind; balance: string }>(
    'SELECT currency, kind, balance FROM ledger_balances WHERE merchant_key = $1 ORDER BY currency, kind',
    [merchantId],
  );
  const byCurrency = new Map<string, MerchantBalance>();
  for (const r of rows) {
    let b = byCurrency.get(r.currency);
    if (!b) byCurrency.set(r.currency, (b = { currency: r.currency, available: { units: 0n, scale: 0 }, reserved: { units: 0n, scale: 0 }, fees: { units: 0n, scale: 0 } }));
    if (r.kind === 'available' || r.kind === 'reserved' || r.kind === 'fees') b[r.kind] = add(b[r.kind], fromDb(r.balance));
    // What returned deposits left owed (src/deposits/returns.ts) is shown as part of available: below zero while owed.
    if (r.kind === 'debt') b.available = add(b.available, fromDb(r.balance));
  }
  return [...byCurrency.values()];
}

/** How many accounts one fold transaction takes. */
export const FOLD_ACCOUNTS = 500;

/**
 * Folds the balance deltas of up to FOLD_ACCOUNTS accounts into their rows, so that reading a
 * balance stays a few rows. Each account's row is locked first (SKIP LOCKED: one a debit holds is
 * folded by that debit), so no delta is added twice. Answers how many accounts and deltas it folded.
 */
export function foldDeltas(db: Db): Promise<{ accounts: number; deltas: number }> {
  return db.tx(async (q) => {
    const { rows } = await q.query<{ id: number }>(
      `SELECT id FROM ledger_accounts WHERE id IN (SELECT DISTINCT account_id FROM ledger_balance_deltas)
       ORDER BY id LIMIT ${FOLD_ACCOUNTS} FOR NO KEY UPDATE SKIP LOCKED`,
    );
    if (rows.length === 0) return { accounts: 0, deltas: 0 };
    // A statement after the locks: it sees every delta committed before them.
    const folded = await q.query<{ n: number }>(
      `WITH folded AS (DELETE FROM ledger_balance_deltas WHERE account_id = ANY($1::int[]) RETURNING account_id, amount),
            sums AS (SELECT account_id, sum(amount) AS total, count(*) AS n FROM folded GROUP BY 1),
            applied AS (UPDATE ledger_accounts a SET balance = a.balance + sums.total FROM sums WHERE a.id = sums.account_id)
       SELECT coalesce(sum(n), 0)::int AS n FROM sums`,
      [rows.map((r) => r.id)],
    );
    return { accounts: rows.length, deltas: folded.rows[0]?.n ?? 0 };
  });
}

/**
 * Deltas folded since ledger_balance_deltas was last vacuumed, per database. A folded delta leaves
 * a dead row and dead entries in the table's two indexes, which every balance read (the
 * ledger_balances view: an account's deltas by ledger_balance_deltas_account_idx) and the fold's
 * own scan walk past until the table is vacuumed; PGlite never vacuums by itself.
 */
const foldedSinceVacuum = new WeakMap<object, number>();
/** Dead deltas left before the fold vacuums their table (as the panel's figure deltas). */
export const VACUUM_AFTER_DELTAS = 10_000;

/**
 * Folds every account's deltas (batches of FOLD_ACCOUNTS until one comes back partial: deltas
 * keep coming under load, so "until none" would never end), then vacuums ledger_balance_deltas
 * once VACUUM_AFTER_DELTAS have been folded since the last time. Answers how many deltas it folded.
 */
export async function foldAllDeltas(db: Db): Promise<number> {
  let folded = 0;
  for (;;) {
    const r = await foldDeltas(db);
    folded += r.deltas;
    if (r.accounts < FOLD_ACCOUNTS) break;
  }
  const since = (foldedSinceVacuum.get(db) ?? 0) + folded;
  if (since >= VACUUM_AFTER_DELTAS) {
    // Not in a transaction (VACUUM cannot be); SKIP_LOCKED: a process vacuuming it already does.
    await db.exec('VACUUM (SKIP_LOCKED) ledger_balance_deltas');
    foldedSinceVacuum.set(db, 0);
  } else {
    foldedSinceVacuum.set(db, since);
  }
  return folded;
}
