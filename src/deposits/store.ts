// The deposits table as the service sees it: the row type and the statements that read it.
import type { Queryable } from '../db/db.ts';
import type { DepositStatus } from '../domain/deposit-states.ts';
import type { Payer } from '../domain/deposit-request.ts';
import type { FeeOverrides } from '../domain/fees.ts';
import { isIntId } from '../domain/ids.ts';

/** A deposits row; numerics arrive as exact text, timestamps as Dates. */
export interface DepositRow {
  id: number;
  merchant_id: number;
  source: 'v3' | 'streamline';
  invoice_id: string;
  user_id: string;
  country: string;
  amount: string;
  currency: string;
  local_amount: string;
  local_currency: string;
  usd_amount: string;
  fee_local: string;
  surcharge_local: string;
  payer_amount: string;
  fee_usd: string;
  merchant_usd: string;
  fee_on_payer: boolean;
  surcharge_on_payer: boolean;
  /** The merchant's fee overrides when the deposit was created (null: the global schedule); a method chosen later is charged by them. */
  fee_schedule: FeeOverrides | null;
  payment_method: string | null;
  payment_type: string | null;
  payment_types: string[] | null;
  bank_code: string | null;
  checkout_type: 'HOSTED' | 'ONE_SHOT';
  token: string;
  status: DepositStatus;
  test: boolean;
  payer: Payer;
  payer_document: string | null;
  payer_document_type: string | null;
  payer_name: string | null;
  payer_email: string | null;
  missing_fields: string[];
  invalid_fields: string[];
  description: string | null;
  notification_url: string | null;
  confirmation_url: string | null;
  return_url: string | null;
  back_url: string | null;
  success_url: string | null;
  error_url: string | null;
  logo: string | null;
  language: string | null;
  client_ip: string | null;
  device_id: string | null;
  mobile: boolean;
  early_release: boolean;
  bonus_amount: string | null;
  bonus_relative: boolean;
  strikethrough_price: string | null;
  reported_info: Record<string, unknown> | null;
  bank_account: Record<string, unknown> | null;
  crypto: Record<string, unknown> | null;
  /** Written by the hosted checkout when a card pays: card_holder, masked_card, brand, expiration. */
  card_detail: Record<string, unknown> | null;
  /** The last refused card attempt (domain/cards.ts CardRefusal), null when none. */
  card_refusal: Record<string, unknown> | null;
  extra: Record<string, unknown>;
  payment_info: string | null;
  /** The connector its charge was created through ('staging', 'pix'), and the provider's reference (Pix: txid). */
  connector: string | null;
  connector_reference: string | null;
  /** The charge's redirect or challenge (src/domain/next-action.ts) when payment_info holds no next action. */
  next_action?: unknown;
  refunded_amount: string;
  /** What bank-initiated returns took back (src/deposits/returns.ts), in the payer's currency. */
  returned_amount: string;
  /** The payer rule's check of the completing payment: true equal, false not reported, null rule off (migration 064). */
  payer_checked: boolean | null;
  sandbox_outcome: 'approve' | 'cancel' | null;
  sandbox_due_at: Date | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  approved_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
}

export async function findDeposit(q: Queryable, id: number, forUpdate = false): Promise<DepositRow | null> {
  if (!isIntId(id)) return null;
  const { rows } = await q.query<DepositRow>(`SELECT * FROM deposits WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

export async function findDepositByInvoice(q: Queryable, merchantId: number, invoiceId: string): Promise<DepositRow | null> {
  const { rows } = await q.query<DepositRow>('SELECT * FROM deposits WHERE merchant_id = $1 AND invoice_id = $2', [merchantId, invoiceId]);
  return rows[0] ?? null;
}

export async function findDepositByToken(q: Queryable, token: string): Promise<DepositRow | null> {
  if (!/^[A-Za-z0-9_-]{22}$/.test(token)) return null;
  const { rows } = await q.query<DepositRow>('SELECT * FROM deposits WHERE token = $1', [token]);
  return rows[0] ?? null;
}

export interface StatusChange {
  id: number;
  from_status: DepositStatus | null;
  to_status: DepositStatus;
  cause: string;
  actor: string;
  note: string | null;
  created_at: Date;
}

/**
 * A deposit's status changes, oldest first. `since` is the deposit's created_at: no change is
 * older than the deposit, so only the month partitions from its month on are read (migration 091).
 */
export async function statusHistory(q: Queryable, depositId: number, since: Date): Promise<StatusChange[]> {
  const { rows } = await q.query<StatusChange>(
    `SELECT id, from_status, to_status, cause, actor, note, created_at FROM deposit_status_changes
     WHERE deposit_id = $1 AND created_at >= date_trunc('month', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' ORDER BY id`,
    [depositId, since],
  );
  return rows;
}

/**
 * What the answers to a creation read of the new deposit (v3's creationResponse, streamline's
 * NewInvoice), and the statement returns no more: parsing all 65 columns of every new row (their
 * description, dates and JSON) made a HOSTED creation cost 173 µs of server CPU instead of 151,
 * and left 5 kB more to the old generation (more major collections: slower p99). The
 * statement's own history, event and key rows read `source` too. payment_info comes from the
 * request (1.4 kB for a Pix deposit with its QR image, not worth sending back).
 */
export const CREATED_COLUMNS = [
  'id', 'merchant_id', 'source', 'invoice_id', 'user_id', 'country', 'payment_method', 'checkout_type', 'token', 'status',
  'local_amount', 'local_currency', 'usd_amount', 'payer_amount', 'created_at',
] as const satisfies readonly (keyof DepositRow)[];

/** A deposit as its creation answers it: a new one's returned columns, or a replayed one's row. */
export type CreatedDeposit = Pick<DepositRow, (typeof CREATED_COLUMNS)[number] | 'payment_info'>;
