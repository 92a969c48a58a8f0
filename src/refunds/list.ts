// Reading refunds in bulk for reports (the service owns writes).
import type { Queryable } from '../db/db.ts';

/** The invoice_id of the deposit each refund given refunds, for reports. */
export async function refundedInvoiceIds(q: Queryable, merchantId: number, refundIds: number[]): Promise<Map<number, string>> {
  if (refundIds.length === 0) return new Map();
  const { rows } = await q.query<{ id: number; invoice_id: string }>(
    'SELECT r.id, d.invoice_id FROM refunds r JOIN deposits d ON d.id = r.deposit_id WHERE r.merchant_id = $1 AND r.id = ANY($2::int[])',
    [merchantId, refundIds],
  );
  return new Map(rows.map((r) => [r.id, r.invoice_id]));
}
