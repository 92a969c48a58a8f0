// Reading a merchant's cashouts in bulk (the panel's list and CSV export) and one cashout's
// history. Newest first, cursor = the last id seen. Next to service.ts rather than in it: the
// service owns writes; this only reads.
import type { Queryable } from '../db/db.ts';
import { newestFirst, type Page, searchTerms } from '../db/paging.ts';
import type { CashoutStatus } from '../domain/cashout-states.ts';
import type { CashoutRow } from './service.ts';

export interface CashoutFilter {
  status?: CashoutStatus;
  country?: string;
  /** Exact external_id, or cashout id when all digits. */
  search?: string;
  from?: Date;
  to?: Date;
  before?: number;
}

export async function listCashouts(q: Queryable, merchantId: number, f: CashoutFilter, limit: number): Promise<Page<CashoutRow>> {
  const search = searchTerms(f.search);
  return newestFirst<CashoutRow>(
    q,
    'cashouts',
    `merchant_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR country = $3)
       AND ($4::text IS NULL OR external_id = $4 OR id = $5) AND ($6::timestamptz IS NULL OR created_at >= $6)
       AND ($7::timestamptz IS NULL OR created_at < $7)`,
    [merchantId, f.status ?? null, f.country ?? null, search.text, search.id, f.from ?? null, f.to ?? null],
    f.before,
    limit,
  );
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
