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

/** The merchant of a refund, or null. */
export async function refundMerchantId(q: Queryable, id: number): Promise<number | null> {
  const { rows } = await q.query<{ merchant_id: number }>('SELECT merchant_id FROM refunds WHERE id = $1', [id]);
  return rows[0]?.merchant_id ?? null;
}

/** A refund sent to a provider as bank reconciliation matches it. */
export interface RefundForMatching {
  id: number;
  status: string;
  amount: string;
  currency: string;
  reference: string;
  provider_id: string | null;
}

/** The refunds sent to a provider that statement lines may name: by reference or provider id, or by id. */
export async function refundsForMatching(q: Queryable, o: { references: string[]; ids: number[] }): Promise<RefundForMatching[]> {
  const { rows } = await q.query<RefundForMatching>(
    `SELECT r.id, r.status, r.local_amount::text AS amount, r.local_currency AS currency, cr.reference, cr.provider_id
     FROM connector_refunds cr JOIN refunds r ON r.id = cr.refund_id WHERE cr.reference = ANY($1::text[]) OR cr.provider_id = ANY($1::text[]) OR r.id = ANY($2::integer[])`,
    [o.references, o.ids],
  );
  return rows;
}
