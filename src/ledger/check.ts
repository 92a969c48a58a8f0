// The ledger's invariants, checked against the database as it is. Runs after every ledger test
// scenario and on demand as `caja ledger check` (exit 1 with this report when one is broken).
//
//   1. every transfer has entries, and they sum to zero in each currency
//   2. every account's balance (its row plus its unfolded deltas: ledger_balances, migration 034)
//      equals the sum of its entries
//   3. no available balance is below zero (a debt is on the `debt` account, never above zero)
//   4. every reserved balance equals its unresolved reservations
//   5. every cashout has a reservation, unresolved while the cashout is open, posted when it
//      COMPLETED, voided when CANCELLED or REJECTED by the bank, posted and returned when it
//      was REJECTED after completing
//   6. a refund's reservation is unresolved while PENDING, posted when COMPLETED, voided otherwise
//   7. only COMPLETED, non-test deposits carry a credit
//   8. every matched (or resolved) bank statement entry is booked once on the bank side, and an
//      entry still waiting in the exceptions queue is not booked (read whole each time: statements
//      are a small table beside the ledger's transfers)
//   9. no debt account is above zero, and every bank-initiated return (deposit_returns) has its
//      debit while applied (unless it took nothing), its debit and reversal when reversed, and no
//      movement while unmatched
//
// Incremental by default: transfers and entries are immutable, so a check that passed proves them
// for good, and the next check reads only what came after it (migration 026): transfers of
// transactions at or after the checkpoint's `below` (1, 7), every account against the sums kept
// at the checkpoint plus the new entries (2, 4; 3 reads the accounts, a few rows per merchant),
// and refunds and cashouts that changed since an hour before the checkpoint or that new transfers
// move (5, 6). The hour covers a transaction that ran long or an instance whose clock is behind.
// A check that fails leaves the checkpoint where it was, so it keeps failing until repaired.
// `full` (or no checkpoint yet) reads everything, as every check did before; run it now and
// then, or on a replica: it alone sees a row changed behind the service's back that moved no
// balance (a status edited by hand in SQL, a transfer written with the triggers off).
import type { Queryable } from '../db/db.ts';

export interface LedgerReport {
  ok: boolean;
  /** full: every row read; incremental: what changed since the last check that passed. */
  mode: 'full' | 'incremental';
  problems: string[];
  /** Accounts, and the transfers and entries this check read. */
  counts: { accounts: number; transfers: number; entries: number };
}

/**
 * Each check's SQL, written for a full or an incremental check: `$1` is the checkpoint's `below`,
 * `$2` the time from which changed refunds and cashouts are looked at again (incremental only).
 * The transfers a check reads are those of `fresh`, a CTE every statement starts with. The two
 * modes are two texts, not one with "$1 IS NULL OR …": the planner needs to see the conditions
 * that an index answers.
 */
const fresh = (full: boolean) => `fresh AS (SELECT * FROM ledger_transfers${full ? '' : ' WHERE tx_id >= $1::xid8'})`;
/** The checkpoint's sums are where an incremental check starts; a full one starts from zero. */
const fromCheckpoint = (full: boolean) => `LEFT JOIN ledger_checkpoint_accounts c ON c.account_id = a.id AND ${full ? 'false' : 'true'}`;
const changed = (full: boolean, table: string, subject: string) =>
  full
    ? 'true'
    : // An array computed once, then looked up by primary key: never a join over every row.
      `${table}.id = ANY (ARRAY(SELECT id FROM ${table === 'c' ? 'cashouts' : 'refunds'} WHERE updated_at >= $2
                                UNION SELECT subject_id FROM fresh WHERE subject_type = '${subject}'))`;

const CHECKS: { name: string; sql: string | ((full: boolean) => string); describe: (r: Record<string, unknown>) => string }[] = [
  {
    name: 'transfers balance',
    sql: `SELECT t.id, a.currency, sum(e.amount)::text AS total
          FROM fresh t JOIN ledger_entries e ON e.transfer_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
          GROUP BY t.id, a.currency HAVING sum(e.amount) <> 0
          UNION ALL
          SELECT t.id, NULL, 'no entries' FROM fresh t WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transfer_id = t.id)`,
    describe: (r) => `transfer ${r.id} does not balance${r.currency ? ` in ${r.currency}` : ''}: ${r.total}`,
  },
  {
    name: 'balances equal their entries',
    sql: (full) => `, moved AS (SELECT e.account_id, sum(e.amount) AS total FROM fresh t JOIN ledger_entries e ON e.transfer_id = t.id GROUP BY 1)
          SELECT a.id, a.merchant_key, a.currency, a.kind, a.balance::text AS balance, (coalesce(c.entries, 0) + coalesce(m.total, 0))::text AS entries
          FROM ledger_balances a LEFT JOIN moved m ON m.account_id = a.id
          ${fromCheckpoint(full)}
          WHERE a.balance <> coalesce(c.entries, 0) + coalesce(m.total, 0)`,
    describe: (r) => `account ${r.id} (${r.merchant_key}/${r.currency}/${r.kind}) holds ${r.balance} but its entries sum to ${r.entries}`,
  },
  {
    name: 'available never below zero',
    sql: `SELECT id, merchant_key, currency, balance::text AS balance FROM ledger_balances WHERE kind = 'available' AND balance < 0`,
    describe: (r) => `merchant ${r.merchant_key} has ${r.balance} ${r.currency} available`,
  },
  {
    // A return the available balance did not cover is owed on the `debt` account (src/deposits/returns.ts):
    // below zero while owed, never above (recoveries and reversals pay at most what is owed).
    name: 'debt never above zero',
    sql: `SELECT id, merchant_key, currency, balance::text AS balance FROM ledger_balances WHERE kind = 'debt' AND balance > 0`,
    describe: (r) => `merchant ${r.merchant_key} has a debt account of ${r.balance} ${r.currency}, above zero`,
  },
  {
    name: 'returns follow their status',
    // Read whole each time: returns are few beside the transfers.
    sql: `SELECT r.id, r.status, debit.id AS debit, rev.id AS reversal
          FROM deposit_returns r
          LEFT JOIN ledger_transfers debit ON debit.kind = 'deposit_return.debit' AND debit.subject_type = 'deposit_return' AND debit.subject_id = r.id
          LEFT JOIN ledger_transfers rev ON rev.kind = 'deposit_return.reverse' AND rev.subject_type = 'deposit_return' AND rev.subject_id = r.id
          WHERE NOT CASE r.status
            WHEN 'unmatched' THEN debit.id IS NULL AND rev.id IS NULL
            WHEN 'applied' THEN rev.id IS NULL AND (debit.id IS NOT NULL OR coalesce(r.debit, 0) = 0 AND coalesce(r.fee, 0) = 0)
            ELSE rev.id IS NOT NULL OR debit.id IS NULL END`,
    describe: (r) => `return ${r.id} is ${r.status} but its debit is ${r.debit ?? 'missing'} and its reversal ${r.reversal ?? 'missing'}`,
  },
  {
    // Open = reservations made minus reservations resolved (each is resolved at most once, by a
    // transfer that can only come after it): a sum that adds up check after check.
    name: 'reserved equals open reservations',
    sql: (full) => `, opened AS (SELECT e.account_id, sum(e.amount) AS total FROM fresh t JOIN ledger_entries e ON e.transfer_id = t.id WHERE t.pending GROUP BY 1),
          closed AS (SELECT e.account_id, sum(e.amount) AS total FROM fresh r JOIN ledger_entries e ON e.transfer_id = r.resolves GROUP BY 1)
          SELECT a.id, a.merchant_key, a.currency, a.balance::text AS balance,
                 (coalesce(c.open_reserved, 0) + coalesce(o.total, 0) - coalesce(x.total, 0))::text AS open
          FROM ledger_balances a LEFT JOIN opened o ON o.account_id = a.id LEFT JOIN closed x ON x.account_id = a.id
          ${fromCheckpoint(full)}
          WHERE a.kind = 'reserved' AND a.balance <> coalesce(c.open_reserved, 0) + coalesce(o.total, 0) - coalesce(x.total, 0)`,
    describe: (r) => `merchant ${r.merchant_key} has ${r.balance} ${r.currency} reserved but open reservations of ${r.open}`,
  },
  {
    name: 'cashout reservations follow the cashout',
    sql: (full) => `SELECT c.id, c.status, res.id AS reservation, resolution.kind AS resolved_by, ret.id AS returned
          FROM cashouts c
          LEFT JOIN ledger_transfers res ON res.kind = 'cashout.reserve' AND res.subject_type = 'cashout' AND res.subject_id = c.id
          LEFT JOIN ledger_transfers resolution ON resolution.resolves = res.id
          LEFT JOIN ledger_transfers ret ON ret.kind = 'cashout.return' AND ret.subject_type = 'cashout' AND ret.subject_id = c.id
          WHERE ${changed(full, 'c', 'cashout')} AND NOT CASE
            WHEN res.id IS NULL THEN false
            WHEN c.status IN ('PENDING', 'ON_HOLD', 'DELIVERED') THEN resolution.id IS NULL AND ret.id IS NULL
            WHEN c.status = 'COMPLETED' THEN resolution.kind IS NOT DISTINCT FROM 'cashout.post' AND ret.id IS NULL
            WHEN c.status = 'CANCELLED' THEN resolution.kind IS NOT DISTINCT FROM 'cashout.void' AND ret.id IS NULL
            WHEN c.status = 'REJECTED' THEN (resolution.kind IS NOT DISTINCT FROM 'cashout.void' AND ret.id IS NULL)
                                         OR (resolution.kind IS NOT DISTINCT FROM 'cashout.post' AND ret.id IS NOT NULL)
            ELSE false END`,
    describe: (r) =>
      r.reservation === null
        ? `cashout ${r.id} (${r.status}) has no reservation`
        : `cashout ${r.id} is ${r.status} but its reservation is ${r.resolved_by ?? 'unresolved'}${r.returned ? ' and returned' : ''}`,
  },
  {
    name: 'refund reservations follow the refund',
    sql: (full) => `SELECT f.id, f.status, resolution.kind AS resolved_by
          FROM refunds f
          JOIN ledger_transfers res ON res.kind = 'refund.reserve' AND res.subject_type = 'refund' AND res.subject_id = f.id
          LEFT JOIN ledger_transfers resolution ON resolution.resolves = res.id
          WHERE ${changed(full, 'f', 'refund')} AND NOT CASE f.status
            WHEN 'PENDING' THEN resolution.id IS NULL
            WHEN 'COMPLETED' THEN resolution.kind IS NOT DISTINCT FROM 'refund.post'
            ELSE resolution.kind IS NOT DISTINCT FROM 'refund.void' END`,
    describe: (r) => `refund ${r.id} is ${r.status} but its reservation is ${r.resolved_by ?? 'unresolved'}`,
  },
  {
    name: 'only completed deposits are credited',
    sql: `SELECT d.id, d.status, d.test FROM fresh t JOIN deposits d ON d.id = t.subject_id
          WHERE t.kind = 'deposit.credit' AND t.subject_type = 'deposit' AND (d.status <> 'COMPLETED' OR d.test)`,
    describe: (r) => `deposit ${r.id} (${r.status}${r.test ? ', test' : ''}) was credited`,
  },
  {
    name: 'matched bank entries are booked once',
    sql: `SELECT e.id, e.status, count(t.id)::int AS bookings
          FROM bank_entries e
          LEFT JOIN ledger_transfers t ON t.kind = 'bank.entry' AND t.subject_type = 'bank_entry' AND t.subject_id = e.id
          GROUP BY e.id, e.status
          HAVING count(t.id) <> CASE WHEN e.status = 'exception' THEN 0 ELSE 1 END`,
    describe: (r) => `bank entry ${r.id} (${r.status}) is booked ${r.bookings} times`,
  },
];

/** How far before the checkpoint changed refunds and cashouts are looked at again. */
const STATUS_MARGIN_MS = 3600_000;

interface Checkpoint {
  below: string;
  checkedAt: Date;
}

/**
 * Checks the ledger: since the last checkpoint, or everything when `full` or when no check has
 * passed yet. A check that passes moves the checkpoint to what it proved.
 */
export async function checkLedger(db: Queryable & { tx?: <T>(fn: (q: Queryable) => Promise<T>) => Promise<T> }, opts: { full?: boolean } = {}): Promise<LedgerReport> {
  const check = async (q: Queryable) => {
    // One snapshot for every statement: the checks agree with each other and with the checkpoint.
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const saved = opts.full ? null : (await q.query<{ below: string; checked_at: Date }>(`SELECT below::text, checked_at FROM ledger_checkpoints WHERE id = 1`)).rows[0];
    const from: Checkpoint | null = saved ? { below: saved.below, checkedAt: saved.checked_at } : null;
    const full = from === null;
    const params = full ? [] : [from.below, new Date(from.checkedAt.getTime() - STATUS_MARGIN_MS)];
    // A statement takes exactly the parameters it names.
    const run = (sql: string) => q.query(sql, params.slice(0, sql.includes('$2') ? 2 : sql.includes('$1') ? 1 : 0));
    const problems: string[] = [];
    for (const invariant of CHECKS) {
      const body = typeof invariant.sql === 'string' ? invariant.sql : invariant.sql(full);
      const { rows } = await run(`WITH ${fresh(full)}${body.startsWith(',') ? '' : ' '}${body}`);
      for (const r of rows.slice(0, 50)) problems.push(`${invariant.name}: ${invariant.describe(r)}`);
      if (rows.length > 50) problems.push(`${invariant.name}: … and ${rows.length - 50} more`);
    }
    const { rows } = await run(
      `WITH ${fresh(full)} SELECT (SELECT count(*)::int FROM ledger_accounts) AS accounts, (SELECT count(*)::int FROM fresh) AS transfers,
              (SELECT count(*)::int FROM fresh t JOIN ledger_entries e ON e.transfer_id = t.id) AS entries`,
    );
    const counts = rows[0] as LedgerReport['counts'];
    const report: LedgerReport = { ok: problems.length === 0, mode: full ? 'full' : 'incremental', problems, counts };
    return { report, next: report.ok ? await nextCheckpoint(q, from?.below ?? null) : null };
  };
  const { report, next } = db.tx ? await db.tx(check) : await check(db);
  if (next) await saveCheckpoint(db, next, report.mode === 'full');
  return report;
}

interface NextCheckpoint {
  below: string;
  at: Date;
  accounts: { account_id: number; entries: string; open_reserved: string }[];
}

/**
 * What this snapshot proves: transfers of transactions older than its xmin (all finished, so all
 * seen), summed per account onto the sums of the checkpoint it started from.
 */
async function nextCheckpoint(q: Queryable, from: string | null): Promise<NextCheckpoint> {
  const { rows: [snap] } = await q.query<{ below: string; at: Date }>(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS below, now() AS at`);
  const { rows } = await q.query<{ account_id: number; entries: string; open_reserved: string }>(
    `WITH win AS (
       SELECT id, pending, resolves FROM ledger_transfers
       WHERE ${from === null ? 'tx_id IS NULL OR tx_id < $1::xid8' : 'tx_id >= $2::xid8 AND tx_id < $1::xid8'}
     ), moved AS (
       SELECT e.account_id, e.amount AS entries, CASE WHEN t.pending THEN e.amount ELSE 0 END AS opened, 0 AS closed
       FROM win t JOIN ledger_entries e ON e.transfer_id = t.id
       UNION ALL
       SELECT e.account_id, 0, 0, e.amount FROM win r JOIN ledger_entries e ON e.transfer_id = r.resolves
     ), sums AS (
       SELECT account_id, sum(entries) AS entries, sum(opened) - sum(closed) AS open_reserved FROM moved GROUP BY 1
     )
     SELECT a.id AS account_id,
            (coalesce(c.entries, 0) + coalesce(s.entries, 0))::text AS entries,
            (CASE WHEN a.kind = 'reserved' THEN coalesce(c.open_reserved, 0) + coalesce(s.open_reserved, 0) ELSE 0 END)::text AS open_reserved
     FROM ledger_accounts a LEFT JOIN sums s ON s.account_id = a.id
     ${fromCheckpoint(from === null)}`,
    from === null ? [snap!.below] : [snap!.below, from],
  );
  return { below: snap!.below, at: snap!.at, accounts: rows };
}

/** Moves the checkpoint forward (never back: two checks may finish in either order). */
async function saveCheckpoint(db: Queryable & { tx?: <T>(fn: (q: Queryable) => Promise<T>) => Promise<T> }, next: NextCheckpoint, full: boolean): Promise<void> {
  const write = async (q: Queryable) => {
    const moved = await q.query(
      `INSERT INTO ledger_checkpoints AS c (id, below, checked_at, full_check) VALUES (1, $1::xid8, $2, $3)
       ON CONFLICT (id) DO UPDATE SET below = EXCLUDED.below, checked_at = EXCLUDED.checked_at, full_check = EXCLUDED.full_check
       WHERE c.below < EXCLUDED.below OR (EXCLUDED.full_check AND c.below <= EXCLUDED.below)
       RETURNING id`,
      [next.below, next.at, full],
    );
    if (moved.rowCount === 0) return;
    await q.query(
      `INSERT INTO ledger_checkpoint_accounts AS c (account_id, entries, open_reserved)
       SELECT * FROM unnest($1::int[], $2::numeric[], $3::numeric[])
       ON CONFLICT (account_id) DO UPDATE SET entries = EXCLUDED.entries, open_reserved = EXCLUDED.open_reserved`,
      [next.accounts.map((a) => a.account_id), next.accounts.map((a) => a.entries), next.accounts.map((a) => a.open_reserved)],
    );
  };
  if (db.tx) await db.tx(write);
  else await write(db);
}
