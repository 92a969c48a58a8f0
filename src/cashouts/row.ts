// A cashout as stored (the row every cashout module reads), below service.ts so that its
// helpers (notifications.ts, connector.ts) need not import the service.
import type { CashoutStatus } from '../domain/cashout-states.ts';

export interface CashoutRow {
  id: number;
  merchant_id: number;
  external_id: string;
  country: string;
  amount: string;
  currency: string;
  local_amount: string;
  local_currency: string;
  usd_amount: string;
  fx_rate: string;
  settlement_amount: string;
  settlement_currency: string;
  status: CashoutStatus;
  document_id: string;
  document_type: string | null;
  beneficiary_name: string;
  beneficiary_lastname: string | null;
  bank_code: string | null;
  bank_name: string | null;
  bank_account: string;
  bank_branch: string | null;
  account_type: string | null;
  email: string | null;
  phone: string | null;
  address: string | null;
  notification_url: string | null;
  comments: string | null;
  rejection_code: string | null;
  rejection_reason: string | null;
  bank_reference_id: string | null;
  pickup_at: Date | null;
  outcome_at: Date | null;
  return_at: Date | null;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
  completed_at: Date | null;
  rejected_at: Date | null;
  cancelled_at: Date | null;
  /** Held above the merchant's threshold until two operators release it (src/operators/approvals.ts). */
  awaiting_approval: boolean;
  /** caja's extension (BR): the beneficiary's Pix key the cashout is sent to (migration 060). */
  pix_key: string | null;
  /** Paid only to a key or account held by the beneficiary's document (the merchant's payer_must_match when created). */
  owner_check: boolean;
}
