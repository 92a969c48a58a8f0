// A merchant's own fee schedule (docs/deposits.md, "Fees"): its fee and surcharge percentages per
// method type over the global schedule of src/domain/fees.ts. Set by the admin API and the
// console, each change audited in its own transaction; deposits copy the overrides at creation
// (src/deposits/service.ts), so a change applies to deposits created after it.
import { type Audit, recordAudit } from '../audit/audit.ts';
import type { Caches } from '../cache/ttl-cache.ts';
import type { Db } from '../db/db.ts';
import { effectiveSchedule, type FeeOverrides } from '../domain/fees.ts';
import type { Merchant } from './merchants.ts';

export interface MerchantFeesView {
  merchant_id: number;
  /** The percentages in effect, per method type. */
  fee: Record<string, string>;
  surcharge: Record<string, string>;
  /** The chargeback fee in effect, USD. */
  chargeback: string;
  /** What the merchant has of its own; {} : the global schedule throughout. */
  overrides: FeeOverrides;
  updated_at: string;
}

export function merchantFeesView(m: Merchant): MerchantFeesView {
  const s = effectiveSchedule(m.fee_schedule);
  return { merchant_id: m.id, fee: s.fee, surcharge: s.surcharge, chargeback: s.chargeback, overrides: m.fee_schedule ?? {}, updated_at: m.updated_at.toISOString() };
}

/**
 * Replaces the merchant's overrides (validated by validateFeeOverrides; {} goes back to the global
 * schedule) and writes `audit` with the before and after in the same transaction. Null: no such merchant.
 */
export async function setMerchantFees(db: Db, id: number, overrides: FeeOverrides, audit: (before: FeeOverrides) => Audit, cache?: Caches): Promise<Merchant | null> {
  const stored = overrides.fee || overrides.surcharge || overrides.chargeback !== undefined ? JSON.stringify(overrides) : null;
  const m = await db.tx(async (q) => {
    const { rows: was } = await q.query<{ fee_schedule: FeeOverrides | null }>('SELECT fee_schedule FROM merchants WHERE id = $1 FOR UPDATE', [id]);
    if (!was[0]) return null;
    const { rows } = await q.query<Merchant>('UPDATE merchants SET fee_schedule = $2::jsonb, updated_at = now() WHERE id = $1 RETURNING *', [id, stored]);
    await recordAudit(q, audit(was[0].fee_schedule ?? {}));
    return rows[0]!;
  });
  // Signed requests carry their merchant (and so its schedule) from the credential cache.
  cache?.changed();
  return m;
}
