// The balance page's movements with the available balance after each one. A page of movements
// (newest first, from the balances service) gets its running figure from the current balance
// minus every change made after the page's first movement.
import type { Queryable } from '../../db/db.ts';
import { listTransactions, type BalanceTransaction } from '../../balances/service.ts';
import { merchantBalances } from '../../ledger/ledger.ts';
import { type Decimal, fromDb, sub } from '../../domain/money.ts';

export interface Movement extends BalanceTransaction {
  availableAfter: Decimal;
}

export async function movements(q: Queryable, merchantId: number, currency: string, before: number | undefined, limit: number) {
  const page = await listTransactions(q, merchantId, { before, limit, currency });
  const balances = await merchantBalances(q, merchantId);
  let running = balances.find((b) => b.currency === currency)?.available ?? { units: 0n, scale: 0 };
  if (before !== undefined) {
    const { rows } = await q.query<{ later: string | null }>(
      `SELECT sum(e.amount)::text AS later FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
       WHERE a.merchant_key = $1 AND a.kind IN ('available', 'debt') AND a.currency = $2 AND e.transfer_id >= $3`,
      [merchantId, currency, before],
    );
    if (rows[0]?.later) running = sub(running, fromDb(rows[0].later));
  }
  const data: Movement[] = page.data.map((m) => {
    const row = { ...m, availableAfter: running };
    running = sub(running, m.amount);
    return row;
  });
  return { data, next: page.hasMore ? data[data.length - 1]!.id : null, balances };
}
