// The ledger's invariants, checked against the database as it is. Runs after every ledger test
// scenario and on demand as `caja ledger check` (exit 1 with this report when one is broken).
//
//   1. every transfer has entries, and they sum to zero in each currency
//   2. every account's balance equals the sum of its entries
//   3. no available balance is below zero
//   4. every reserved balance equals its unresolved reservations
//   5. every cashout has a reservation, unresolved while the cashout is open, posted when it
//      COMPLETED, voided when CANCELLED or REJECTED by the bank, posted and returned when it
//      was REJECTED after completing
//   6. a refund's reservation is unresolved while PENDING, posted when COMPLETED, voided otherwise
//   7. only COMPLETED, non-test deposits carry a credit
//   8. every matched (or resolved) bank statement entry is booked once on the bank side, and an
//      entry still waiting in the exceptions queue is not booked
import type { Queryable } from '../db/db.ts';

export interface LedgerReport {
  ok: boolean;
  problems: string[];
  counts: { accounts: number; transfers: number; entries: number };
}

const CHECKS: { name: string; sql: string; describe: (r: Record<string, unknown>) => string }[] = [
  {
    name: 'transfers balance',
    sql: `SELECT t.id, a.currency, sum(e.amount)::text AS total
          FROM ledger_transfers t JOIN ledger_entries e ON e.transfer_id = t.id JOIN ledger_accounts a ON a.id = e.account_id
          GROUP BY t.id, a.currency HAVING sum(e.amount) <> 0
          UNION ALL
          SELECT t.id, NULL, 'no entries' FROM ledger_transfers t WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transfer_id = t.id)`,
    describe: (r) => `transfer ${r.id} does not balance${r.currency ? ` in ${r.currency}` : ''}: ${r.total}`,
  },
  {
    name: 'balances equal their entries',
    sql: `SELECT a.id, a.merchant_key, a.currency, a.kind, a.balance::text AS balance, coalesce(sum(e.amount), 0)::text AS entries
          FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
          GROUP BY a.id HAVING a.balance <> coalesce(sum(e.amount), 0)`,
    describe: (r) => `account ${r.id} (${r.merchant_key}/${r.currency}/${r.kind}) holds ${r.balance} but its entries sum to ${r.entries}`,
  },
  {
    name: 'available never below zero',
    sql: `SELECT id, merchant_key, currency, balance::text AS balance FROM ledger_accounts WHERE kind = 'available' AND balance < 0`,
    describe: (r) => `merchant ${r.merchant_key} has ${r.balance} ${r.currency} available`,
  },
  {
    name: 'reserved equals open reservations',
    sql: `SELECT a.id, a.merchant_key, a.currency, a.balance::text AS balance, coalesce(sum(e.amount), 0)::text AS open
          FROM ledger_accounts a
          LEFT JOIN ledger_entries e ON e.account_id = a.id
            AND e.transfer_id IN (SELECT t.id FROM ledger_transfers t WHERE t.pending
                                  AND NOT EXISTS (SELECT 1 FROM ledger_transfers r WHERE r.resolves = t.id))
          WHERE a.kind = 'reserved'
          GROUP BY a.id HAVING a.balance <> coalesce(sum(e.amount), 0)`,
    describe: (r) => `merchant ${r.merchant_key} has ${r.balance} ${r.currency} reserved but open reservations of ${r.open}`,
  },
  {
    name: 'cashout reservations follow the cashout',
    sql: `SELECT c.id, c.status, res.id AS reservation, resolution.kind AS resolved_by, ret.id AS returned
          FROM cashouts c
          LEFT JOIN ledger_transfers res ON res.kind = 'cashout.reserve' AND res.subject_type = 'cashout' AND res.subject_id = c.id
          LEFT JOIN ledger_transfers resolution ON resolution.resolves = res.id
          LEFT JOIN ledger_transfers ret ON ret.kind = 'cashout.return' AND ret.subject_type = 'cashout' AND ret.subject_id = c.id
          WHERE NOT CASE
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
    sql: `SELECT f.id, f.status, resolution.kind AS resolved_by
          FROM refunds f
          JOIN ledger_transfers res ON res.kind = 'refund.reserve' AND res.subject_type = 'refund' AND res.subject_id = f.id
          LEFT JOIN ledger_transfers resolution ON resolution.resolves = res.id
          WHERE NOT CASE f.status
            WHEN 'PENDING' THEN resolution.id IS NULL
            WHEN 'COMPLETED' THEN resolution.kind IS NOT DISTINCT FROM 'refund.post'
            ELSE resolution.kind IS NOT DISTINCT FROM 'refund.void' END`,
    describe: (r) => `refund ${r.id} is ${r.status} but its reservation is ${r.resolved_by ?? 'unresolved'}`,
  },
  {
    name: 'only completed deposits are credited',
    sql: `SELECT d.id, d.status, d.test FROM ledger_transfers t JOIN deposits d ON d.id = t.subject_id
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

export async function checkLedger(q: Queryable): Promise<LedgerReport> {
  const problems: string[] = [];
  for (const check of CHECKS) {
    const { rows } = await q.query(check.sql);
    for (const r of rows.slice(0, 50)) problems.push(`${check.name}: ${check.describe(r)}`);
    if (rows.length > 50) problems.push(`${check.name}: … and ${rows.length - 50} more`);
  }
  const { rows } = await q.query<{ accounts: number; transfers: number; entries: number }>(
    `SELECT (SELECT count(*) FROM ledger_accounts) AS accounts, (SELECT count(*) FROM ledger_transfers) AS transfers,
            (SELECT count(*) FROM ledger_entries) AS entries`,
  );
  return { ok: problems.length === 0, problems, counts: rows[0]! };
}
