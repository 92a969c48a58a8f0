// The reads of the cashouts table other features need (issue 39 §3: SQL on `cashouts` lives in
// src/cashouts/ only): the operator console, four eyes and reconciliation ask here.
import type { Queryable } from '../db/db.ts';

/**
 * The operator console's search: per merchant, the first cashout (`cashout N`, least as text)
 * whose id, external id or beneficiary document is `text`.
 */
export async function cashoutSearchHits(q: Queryable, text: string, id: number | null): Promise<{ merchant_id: number; via: string }[]> {
  if (text === '') return [];
  const { rows } = await q.query<{ merchant_id: number; via: string }>(
    `SELECT merchant_id, min('cashout ' || id) AS via FROM cashouts WHERE id = $2 OR external_id = $1 OR document_id = $1 GROUP BY merchant_id`,
    [text, id],
  );
  return rows;
}

/** The merchant of a cashout, or null. */
export async function cashoutMerchantId(q: Queryable, id: number): Promise<number | null> {
  const { rows } = await q.query<{ merchant_id: number }>('SELECT merchant_id FROM cashouts WHERE id = $1', [id]);
  return rows[0]?.merchant_id ?? null;
}

/** A cashout's hold, locked for a release request (in the caller's transaction). */
export async function lockCashoutHold(q: Queryable, id: number): Promise<{ merchant_id: number; awaiting_approval: boolean; status: string } | undefined> {
  const { rows } = await q.query<{ merchant_id: number; awaiting_approval: boolean; status: string }>(
    'SELECT merchant_id, awaiting_approval, status FROM cashouts WHERE id = $1 FOR UPDATE',
    [id],
  );
  return rows[0];
}

/** A cashout held above its merchant's threshold, with the open release request if any. */
export interface HeldCashout {
  id: number;
  merchant_id: number;
  merchant_name: string;
  external_id: string;
  amount: string;
  currency: string;
  usd_amount: string;
  created_at: Date;
  open_request: number | null;
}

/** Cashouts held above their merchant's threshold (at most 200), with the open request for each if any. */
export async function heldCashoutsAwaitingApproval(q: Queryable): Promise<HeldCashout[]> {
  const { rows } = await q.query<HeldCashout>(
    `SELECT c.id, c.merchant_id, m.name AS merchant_name, c.external_id, c.amount::text, c.currency, c.usd_amount::text, c.created_at,
            (SELECT a.id FROM approvals a WHERE a.cashout_id = c.id AND a.status = 'pending') AS open_request
     FROM cashouts c JOIN merchants m ON m.id = c.merchant_id WHERE c.awaiting_approval AND c.status = 'ON_HOLD' ORDER BY c.id LIMIT 200`,
  );
  return rows;
}

/** A cashout as bank reconciliation matches it. */
export interface CashoutForMatching {
  id: number;
  status: string;
  local_amount: string;
  local_currency: string;
  bank_account: string;
  bank_reference_id: string | null;
  document_id: string;
  created_at: Date;
}

/**
 * The cashouts bank statement lines may name: by bank reference or id, or DELIVERED/COMPLETED
 * since `since` paying one of `accounts` or one of `amounts`.
 */
export async function cashoutsForMatching(
  q: Queryable, o: { references: string[]; ids: number[]; accounts: string[]; amounts: string[]; since: Date },
): Promise<CashoutForMatching[]> {
  const columns = 'id, status, local_amount::text, local_currency, bank_account, bank_reference_id, document_id, created_at';
  const { rows } = await q.query<CashoutForMatching>(
    `SELECT ${columns} FROM cashouts WHERE bank_reference_id = ANY($1::text[]) OR id = ANY($5::integer[])
     UNION
     SELECT ${columns} FROM cashouts WHERE status IN ('DELIVERED', 'COMPLETED') AND created_at >= $4
       AND (bank_account = ANY($2::text[]) OR local_amount = ANY($3::numeric[]))`,
    [o.references, o.accounts, o.amounts, o.since, o.ids],
  );
  return rows;
}
