// The reads of the refunds table other features need (issue 39 §3: SQL on `refunds` lives in
// src/refunds/ only): a deposit's detail asks here for its refunds.
import type { Queryable } from '../db/db.ts';

/** A deposit's refunds, oldest first, as its detail shows them. */
export async function refundsOfDepositRows(q: Queryable, depositId: number): Promise<{ id: number; status: string; amount: string; currency: string; created_at: Date }[]> {
  const { rows } = await q.query<{ id: number; status: string; amount: string; currency: string; created_at: Date }>(
    'SELECT id, status, amount, currency, created_at FROM refunds WHERE deposit_id = $1 ORDER BY id', [depositId]);
  return rows;
}

/** The ids of a deposit's refunds. */
export async function refundIdsOfDeposit(q: Queryable, depositId: number): Promise<number[]> {
  const { rows } = await q.query<{ id: number }>('SELECT id FROM refunds WHERE deposit_id = $1', [depositId]);
  return rows.map((r) => r.id);
}
