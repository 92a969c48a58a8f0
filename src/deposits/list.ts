// Reading a merchant's deposits in bulk (the panel's list and CSV export), with the refunds and
// notifications of one deposit. Newest first, cursor = the last id seen.
import type { Queryable } from '../db/db.ts';
import { newestFirst, type Page, searchTerms } from '../db/paging.ts';
import type { DepositStatus } from '../domain/deposit-states.ts';
import type { DepositRow } from './store.ts';

export interface DepositFilter {
  status?: DepositStatus;
  country?: string;
  method?: string;
  from?: Date;
  to?: Date;
  /** Invoice id, deposit id, payer e-mail (any case) or payer document, exactly. */
  search?: string;
  before?: number;
}

export async function listDeposits(q: Queryable, merchantId: number, f: DepositFilter, limit: number): Promise<Page<DepositRow>> {
  const search = searchTerms(f.search);
  return newestFirst<DepositRow>(
    q,
    'deposits',
    `merchant_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR country = $3)
       AND ($4::text IS NULL OR payment_method = $4) AND ($5::timestamptz IS NULL OR created_at >= $5)
       AND ($6::timestamptz IS NULL OR created_at < $6)
       AND ($7::text IS NULL OR invoice_id = $7 OR id = $8 OR lower(payer_email) = lower($7) OR payer_document = $7)`,
    [merchantId, f.status ?? null, f.country ?? null, f.method ?? null, f.from ?? null, f.to ?? null, search.text, search.id],
    f.before,
    limit,
  );
}

export interface DepositRefund {
  id: number;
  status: string;
  amount: string;
  currency: string;
  created_at: Date;
}

export async function refundsOfDeposit(q: Queryable, depositId: number): Promise<DepositRefund[]> {
  const { rows } = await q.query<DepositRefund>('SELECT id, status, amount, currency, created_at FROM refunds WHERE deposit_id = $1 ORDER BY id', [depositId]);
  return rows;
}

/** Ids of the notifications sent about a deposit (and its refunds), oldest first. */
export async function notificationIdsOf(q: Queryable, merchantId: number, depositId: number): Promise<number[]> {
  const { rows } = await q.query<{ id: number }>(
    `SELECT id FROM notifications WHERE merchant_id = $1 AND (subject_key = $2 OR subject_key IN (SELECT 'refund:' || id FROM refunds WHERE deposit_id = $3)) ORDER BY id`,
    [merchantId, `deposit:${depositId}`, depositId],
  );
  return rows.map((r) => Number(r.id));
}
