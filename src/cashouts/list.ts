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
