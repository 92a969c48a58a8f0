// retention_horizons: the highest id archived per table and merchant, so that a cursor or id
// the API handed out before retention took its row is answered as such, not as unknown.
import type { Queryable } from '../db/db.ts';
import { horizons, missingIdKind } from './rules.ts';

export type HorizonTable = 'events' | 'notifications';

/** Raises the horizons to cover rows being archived (in the transaction that deletes them). */
export async function recordHorizons(q: Queryable, table: HorizonTable, rows: { id: number; merchant_id: number }[]): Promise<void> {
  for (const [merchantId, maxId] of horizons(rows)) {
    await q.query(
      `INSERT INTO retention_horizons (table_name, merchant_id, max_id) VALUES ($1, $2, $3)
       ON CONFLICT (table_name, merchant_id) DO UPDATE SET max_id = greatest(retention_horizons.max_id, EXCLUDED.max_id)`,
      [table, merchantId, maxId],
    );
  }
}

/** Whether an id that matches none of the merchant's rows was archived by retention or never was its. */
export async function missingId(q: Queryable, table: HorizonTable, merchantId: number, id: number): Promise<'archived' | 'unknown'> {
  const { rows } = await q.query<{ max_id: number }>('SELECT max_id FROM retention_horizons WHERE table_name = $1 AND merchant_id = $2', [table, merchantId]);
  return missingIdKind(id, rows[0] ? Number(rows[0].max_id) : null);
}
