// The reads of the deposits table other features need (issue 39 §3: SQL on `deposits` lives in
// src/deposits/ only): faces, the operator console, reconciliation and refunds ask here.
import type { Queryable } from '../db/db.ts';
import type { DepositRow } from './store.ts';
import type { DepositNames } from '../connectors/payin.ts';

/** The columns webpaystatus answers from (streamlineFields and PT), no more. */
export type DepositStatusRow = Pick<DepositRow, 'id' | 'invoice_id' | 'user_id' | 'description' | 'country' | 'payment_method' | 'bank_code' | 'amount' | 'currency' | 'status' | 'test' | 'card_detail' | 'card_refusal'>;

/**
 * A deposit as webpaystatus needs it. The whole row (findDepositByInvoice) is some 60 columns,
 * the payer and, for Pix, the payment info with its QR image (1.4 kB): reading and parsing them on
 * every status poll cost about three times the CPU of these few (≈230 against ≈75 µs a read).
 */
export async function depositStatusRow(q: Queryable, merchantId: number, invoiceId: string): Promise<DepositStatusRow | null> {
  const { rows } = await q.query<DepositStatusRow>(
    `SELECT id, invoice_id, user_id, description, country, payment_method, bank_code, amount, currency, status, test, card_detail, card_refusal
     FROM deposits WHERE merchant_id = $1 AND invoice_id = $2`,
    [merchantId, invoiceId],
    { name: 'caja_streamline_status' },
  );
  return rows[0] ?? null;
}

/** What a refund request names of its deposit (by id or by invoice id), the merchant's only. */
export async function depositForRefundRequest(q: Queryable, merchantId: number, by: { id: number } | { invoiceId: string }) {
  const { rows } = await q.query<{ id: number; currency: string; local_currency: string; invoice_id: string; country: string; payment_type: string | null }>(
    `SELECT id, currency, local_currency, invoice_id, country, payment_type FROM deposits WHERE merchant_id = $1 AND ${'id' in by ? 'id = $2' : 'invoice_id = $2'}`,
    [merchantId, 'id' in by ? by.id : by.invoiceId],
  );
  return rows[0];
}

/**
 * The operator console's search: per merchant, the first deposit (`deposit N`, least as text)
 * whose id, invoice id, payer email or document is `text`.
 */
export async function depositSearchHits(q: Queryable, text: string, id: number | null): Promise<{ merchant_id: number; via: string }[]> {
  if (text === '') return [];
  const { rows } = await q.query<{ merchant_id: number; via: string }>(
    `SELECT merchant_id, min('deposit ' || id) AS via FROM deposits
     WHERE id = $2 OR invoice_id = $1 OR lower(payer_email) = lower($1) OR payer_document = $1 GROUP BY merchant_id`,
    [text, id],
  );
  return rows;
}

/** The merchant of a deposit, or null. */
export async function depositMerchantId(q: Queryable, id: number): Promise<number | null> {
  const { rows } = await q.query<{ merchant_id: number }>('SELECT merchant_id FROM deposits WHERE id = $1', [id]);
  return rows[0]?.merchant_id ?? null;
}

/** A deposit as bank reconciliation matches it. */
export interface DepositForMatching {
  id: number;
  status: string;
  connector: string | null;
  payer_amount: string;
  local_currency: string;
  country: string;
  payer_document: string | null;
  created_at: Date;
  /** The merchant's payer rule (payer_must_match) and the deposit's outcome of it (docs/connectors.md, "The payer rule"). */
  payer_must_match: boolean;
  payer_checked: boolean | null;
}

/**
 * The deposits bank statement lines may name: by id, or PENDING on `connectors` whose id modulo a
 * million is one of `remainders` (MX) or whose payer amount is one of `amounts` since `since`.
 */
export async function depositsForMatching(
  q: Queryable, o: { ids: number[]; connectors: readonly string[]; remainders: number[]; amounts: string[]; since: Date },
): Promise<DepositForMatching[]> {
  const columns = 'id, status, connector, payer_amount::text, local_currency, country, payer_document, created_at, payer_checked,' +
    ' coalesce((SELECT m.payer_must_match FROM merchants m WHERE m.id = merchant_id), false) AS payer_must_match';
  const { rows } = await q.query<DepositForMatching>(
    `SELECT ${columns} FROM deposits WHERE id = ANY($1::integer[])
     UNION
     SELECT ${columns} FROM deposits WHERE connector = ANY($2::text[]) AND status = 'PENDING' AND (
       (country = 'MX' AND (id % 1000000) = ANY($3::integer[]))
       OR (payer_amount = ANY($4::numeric[]) AND created_at >= $5))`,
    [o.ids, o.connectors, o.remainders, o.amounts, o.since],
  );
  return rows;
}

/** A refund's amount added to its deposit's refunded amount (in the refund's transaction). */
export async function addRefundedAmount(q: Queryable, depositId: number, amount: string): Promise<void> {
  await q.query('UPDATE deposits SET refunded_amount = refunded_amount + $2, updated_at = now() WHERE id = $1', [depositId, amount]);
}

export interface LockedDeposit {
  id: number;
  status: string;
  amount: string;
  currency: string;
  local_amount: string;
  local_currency: string;
  country: string;
  payment_method: string | null;
  payment_type: string | null;
  connector: string | null;
}

/** The merchant's deposit by id and/or invoice (both must agree when both are given), locked (a refund's creation). */
export async function lockDeposit(q: Queryable, merchantId: number, depositId?: number, invoiceId?: string): Promise<LockedDeposit | null> {
  if (depositId === undefined && invoiceId === undefined) return null;
  const conditions = ['merchant_id = $1'];
  const params: unknown[] = [merchantId];
  if (depositId !== undefined) {
    params.push(depositId);
    conditions.push(`id = $${params.length}`);
  }
  if (invoiceId !== undefined) {
    params.push(invoiceId);
    conditions.push(`invoice_id = $${params.length}`);
  }
  const { rows } = await q.query<LockedDeposit>(
    `SELECT id, status, amount, currency, local_amount, local_currency, country, payment_method, payment_type, connector FROM deposits WHERE ${conditions.join(' AND ')} FOR UPDATE`,
    params,
  );
  return rows[0] ?? null;
}

/** The provider's reference of each deposit's charge (connector_reference), by deposit id: a refund names the payment it returns. */
export async function chargeReferences(q: Queryable, ids: number[]): Promise<Map<number, string | null>> {
  if (ids.length === 0) return new Map();
  const { rows } = await q.query<{ id: number; connector_reference: string | null }>('SELECT id, connector_reference FROM deposits WHERE id = ANY($1::bigint[])', [ids]);
  return new Map(rows.map((r) => [Number(r.id), r.connector_reference]));
}

/** How many deposits a payment into the operator's own account is reported to name, at most. */
const NAMED_AT_MOST = 5;

/**
 * The deposits of `connector` a payment into the operator's own account names (its connector's
 * ownAccountNames): by an id remainder (speiReference: the id modulo a million, so every id of
 * that remainder up to the newest) or by a deposit's connector reference (the account itself,
 * when a deposit was given it). Index look-ups only; newest first, at most NAMED_AT_MOST.
 */
export async function depositsNamed(q: Queryable, connector: string, names: DepositNames): Promise<number[]> {
  if (names.remainders.length === 0 && names.references.length === 0) return [];
  const { rows: top } = await q.query<{ max: number | null }>('SELECT max(id) AS max FROM deposits');
  const max = Number(top[0]?.max ?? 0);
  const ids = new Set<number>();
  for (const r of names.remainders) for (let id = r; id <= max; id += 1_000_000) if (id > 0) ids.add(id);
  const { rows } = await q.query<{ id: number }>(
    'SELECT id FROM deposits WHERE connector = $1 AND (id = ANY($2::integer[]) OR connector_reference = ANY($3::text[])) ORDER BY id DESC LIMIT $4',
    [connector, [...ids], names.references, NAMED_AT_MOST]);
  return rows.map((r) => Number(r.id));
}
