// Reading a merchant's cashouts in bulk (the panel's list and CSV export) and one cashout's
// history. Newest first, cursor = the last id seen. Next to service.ts rather than in it: the
// service owns writes; this only reads.
import type { Queryable } from '../db/db.ts';
import { type ListFilter, merchantListPage, type Page } from '../db/paging.ts';
import type { CashoutStatus } from '../domain/cashout-states.ts';
import type { CashoutRow } from './service.ts';

export interface CashoutFilter extends ListFilter<CashoutStatus> {
  /** Exact external_id, or cashout id when all digits. */
  search?: string;
}

export async function listCashouts(q: Queryable, merchantId: number, f: CashoutFilter, limit: number): Promise<Page<CashoutRow>> {
  return merchantListPage<CashoutRow>(q, 'cashouts', merchantId, f, limit, (text, id) => `external_id = ${text}${id ? ` OR id = ${id}` : ''}`);
}

export interface CashoutChange {
  from_status: CashoutStatus | null;
  to_status: CashoutStatus;
  cause: string;
  actor: string;
  created_at: Date;
}

export async function cashoutHistory(q: Queryable, cashoutId: number): Promise<CashoutChange[]> {
  const { rows } = await q.query<CashoutChange>(
    'SELECT from_status, to_status, cause, actor, created_at FROM cashout_status_changes WHERE cashout_id = $1 ORDER BY id',
    [cashoutId],
  );
  return rows;
}

/** Cashouts not yet paid, per country and status: how many, and the oldest one's age in seconds. */
export interface WaitingCashouts {
  country: string;
  status: 'PENDING' | 'DELIVERED';
  count: number;
  oldestSeconds: number;
}

/**
 * What the payout side still owes: PENDING (not handed to a bank yet) and DELIVERED (handed
 * over, no outcome yet), through their partial indexes (migration 008). ON_HOLD is the merchant's
 * own decision and is not waiting on caja.
 */
export async function waitingCashouts(q: Queryable): Promise<WaitingCashouts[]> {
  const { rows } = await q.query<WaitingCashouts>(
    `SELECT country, status, count(*)::int AS count, extract(epoch FROM now() - min(created_at))::float8 AS "oldestSeconds"
     FROM cashouts WHERE status IN ('PENDING', 'DELIVERED') GROUP BY country, status`,
  );
  return rows;
}

/** The merchant's own reference (external_id) of each cashout given, for reports. */
export async function cashoutExternalIds(q: Queryable, merchantId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await q.query<{ id: number; external_id: string }>('SELECT id, external_id FROM cashouts WHERE merchant_id = $1 AND id = ANY($2::int[])', [merchantId, ids]);
  return new Map(rows.map((r) => [r.id, r.external_id]));
}
