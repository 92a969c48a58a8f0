// Reading a merchant's deposits in bulk (the panel's list and CSV export), with the refunds and
// notifications of one deposit. Newest first, cursor = the last id seen.
import { refundIdsOfDeposit, refundsOfDepositRows } from '../refunds/lookups.ts';
import type { Queryable } from '../db/db.ts';
import { type ListFilter, merchantListPage, type Page } from '../db/paging.ts';
import type { DepositStatus } from '../domain/deposit-states.ts';
import type { DepositRow } from './store.ts';

export interface DepositFilter extends ListFilter<DepositStatus> {
  method?: string;
  /** Invoice id, deposit id, payer e-mail (any case) or payer document, exactly. */
  search?: string;
}

export async function listDeposits(q: Queryable, merchantId: number, f: DepositFilter, limit: number): Promise<Page<DepositRow>> {
  return merchantListPage<DepositRow>(
    q, 'deposits', merchantId, f, limit,
    (text, id) => `invoice_id = ${text} OR lower(payer_email) = lower(${text}) OR payer_document = ${text}${id ? ` OR id = ${id}` : ''}`,
    { payment_method: f.method },
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
  return refundsOfDepositRows(q, depositId);
}

/** Ids of the notifications sent about a deposit (and its refunds), oldest first. */
export async function notificationIdsOf(q: Queryable, merchantId: number, depositId: number): Promise<number[]> {
  const { rows } = await q.query<{ id: number }>(
    `SELECT id FROM notifications WHERE merchant_id = $1 AND subject_key = ANY($2::text[] || $3::text[]) ORDER BY id`,
    [merchantId, [`deposit:${depositId}`], (await refundIdsOfDeposit(q, depositId)).map((id) => `refund:${id}`)],
  );
  return rows.map((r) => Number(r.id));
}

/** The merchant's own reference (invoice_id) of each deposit given, for reports. */
export async function depositInvoiceIds(q: Queryable, merchantId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await q.query<{ id: number; invoice_id: string }>('SELECT id, invoice_id FROM deposits WHERE merchant_id = $1 AND id = ANY($2::int[])', [merchantId, ids]);
  return new Map(rows.map((r) => [r.id, r.invoice_id]));
}

