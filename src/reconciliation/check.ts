// `caja ledger check --against <statement>`: for the statement's account and day, the bank's
// balance against the ledger's bank account, and how much of the difference the open exceptions
// explain. What is left unexplained is money the ledger and the bank disagree on.
//
// The ledger keeps money held as negative balances (see service.ts bookEntry), so the bank
// account's ledger balance is shown negated, as the bank shows it.
import type { Queryable } from '../db/db.ts';
import { dec, type Decimal, fromDb, neg, rescale, sub, toDb } from '../domain/money.ts';
import type { ParsedStatement } from './statement.ts';

export interface StatementCheck {
  account: string;
  date: string | null;
  currency: string;
  /** Whether this statement was imported (otherwise its entries are not in the ledger yet). */
  imported: boolean;
  bank_balance: string | null;
  ledger_balance: string;
  difference: string | null;
  explained_by_exceptions: string;
  open_exceptions: number;
  unexplained: string | null;
  ok: boolean;
}

/** At least two decimals, so every figure reads like the bank's ("0.00", not "0"). */
const money = (d: Decimal) => toDb(rescale(d, Math.max(d.scale, 2)));

export async function checkAgainstStatement(q: Queryable, s: ParsedStatement): Promise<StatementCheck> {
  const { rows: accounts } = await q.query<{ id: number }>('SELECT id FROM bank_accounts WHERE identifier = $1', [s.account]);
  const accountId = accounts[0]?.id ?? null;
  const day = s.date ?? s.entries.reduce((m, e) => (e.bookingDate > m ? e.bookingDate : m), '0000-01-01');
  let ledger = dec('0');
  let explained = dec('0');
  let open = 0;
  let imported = false;
  if (accountId !== null) {
    const { rows } = await q.query<{ balance: string }>(
      `SELECT coalesce(sum(le.amount), 0)::text AS balance
       FROM ledger_entries le JOIN ledger_accounts la ON la.id = le.account_id AND la.kind = 'bank' AND la.bank_key = $1 AND la.currency = $3
       JOIN ledger_transfers t ON t.id = le.transfer_id
       LEFT JOIN bank_entries be ON t.subject_type = 'bank_entry' AND be.id = t.subject_id
       WHERE t.subject_type = 'bank_account' OR be.booking_date <= $2`,
      [accountId, day, s.currency],
    );
    ledger = neg(fromDb(rows[0]!.balance));
    const ex = await q.query<{ total: string; n: number }>(
      `SELECT coalesce(sum(CASE WHEN e.direction = 'credit' THEN e.amount ELSE -e.amount END), 0)::text AS total, count(*)::int AS n
       FROM reconciliation_exceptions x JOIN bank_entries e ON e.id = x.entry_id
       WHERE x.status = 'open' AND e.bank_account_id = $1 AND e.booking_date <= $2`,
      [accountId, day],
    );
    explained = fromDb(ex.rows[0]!.total);
    open = ex.rows[0]!.n;
    const st = await q.query('SELECT 1 FROM bank_statements WHERE bank_account_id = $1 AND statement_ref = $2', [accountId, s.statementRef]);
    imported = st.rows.length > 0;
  }
  const bank = s.closingBalance === null ? null : dec(s.closingBalance);
  const difference = bank === null ? null : sub(bank, ledger);
  const unexplained = difference === null ? null : sub(difference, explained);
  return {
    account: s.account, date: day, currency: s.currency, imported,
    bank_balance: bank === null ? null : money(bank), ledger_balance: money(ledger),
    difference: difference === null ? null : money(difference), explained_by_exceptions: money(explained), open_exceptions: open,
    unexplained: unexplained === null ? null : money(unexplained),
    ok: imported && unexplained !== null && unexplained.units === 0n,
  };
}
