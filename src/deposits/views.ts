// How the v3 face shows a deposit: the creation response (HOSTED or ONE_SHOT) and the status
// view of GET /v3/deposits/{id}. Both are functions of the stored row only, so an idempotent
// replay answers byte for byte what the first request got.
import { findMethod } from '../domain/catalog.ts';
import { storedCryptoDetail } from '../domain/crypto.ts';
import { dec, fromDb } from '../domain/money.ts';
import { formatDateTime, receiptUrl as voucherReceiptUrl } from '../domain/payment-info.ts';
import { RawJson, toJson } from './json.ts';
import { servedPaymentInfo } from './stored-payment-info.ts';
import { returnStatusOf } from './returns.ts';
import { type DepositDispute, disputeStatus } from './disputes.ts';
import { storedCardRefusal } from '../domain/cards.ts';
import type { CreatedDeposit, DepositRow } from './store.ts';

/** Customer-facing URLs; the token is 128 random bits, so they cannot be guessed. */
export function redirectUrl(base: string, d: Pick<DepositRow, 'checkout_type' | 'token'>): string {
  return `${base}/${d.checkout_type === 'HOSTED' ? 'checkout' : 'pay'}/${d.token}`;
}

/** The same URL payment_info.metadata.receipt_url carries: one definition, in the domain. */
export function receiptUrl(base: string, d: Pick<DepositRow, 'token'>): string {
  return voucherReceiptUrl(base, d.token);
}

export function creationResponse(base: string, d: CreatedDeposit): string {
  const hosted = d.checkout_type === 'HOSTED';
  const method = d.payment_method ? findMethod(d.country, d.payment_method) : undefined;
  return toJson({
    checkout_type: d.checkout_type,
    redirect_url: redirectUrl(base, d),
    ...(hosted ? {} : { iframe: method?.iframe ?? false }),
    deposit_id: d.id,
    user_id: d.user_id,
    merchant_invoice_id: d.invoice_id,
    // A new deposit's payment_info is the one just built; a replayed one's is read back, its QR image drawn again.
    ...(hosted || !d.payment_info ? {} : { payment_info: new RawJson(servedPaymentInfo(d.payment_info)) }),
  });
}

const time = (t: Date | null) => (t ? formatDateTime(t) : undefined);

const CARD_DETAIL_KEYS = ['card_holder', 'masked_card', 'brand', 'expiration'] as const;

/**
 * The card a card deposit was paid with, as the client libraries read it. Only the four known
 * keys are copied out of the column, so nothing else stored there can ever reach a response.
 */
function cardDetailView(stored: Record<string, unknown> | null): Record<string, string> | null {
  if (!stored) return null;
  const out: Record<string, string> = {};
  for (const k of CARD_DETAIL_KEYS) if (typeof stored[k] === 'string') out[k] = stored[k];
  return Object.keys(out).length ? out : null;
}

/** The quote fixed at creation, with its decimals as exact JSON numbers. */
function cryptoView(d: Pick<DepositRow, 'country' | 'payment_method' | 'crypto'>): Record<string, unknown> | null {
  const c = findMethod(d.country, d.payment_method ?? '')?.kind === 'crypto' ? storedCryptoDetail(d.crypto) : null;
  return c && { currency: c.currency, wallet: c.wallet, network: c.network, crypto_fx: dec(c.crypto_fx), crypto_amount: dec(c.crypto_amount) };
}

/** What statusView reads: GET /v3/deposits/{id} selects only these (not the 1.4 kB payment_info of a Pix deposit). */
export const STATUS_VIEW_COLUMNS = [
  'id', 'invoice_id', 'user_id', 'country', 'local_currency', 'usd_amount', 'local_amount', 'amount', 'currency', 'bonus_amount',
  'bonus_relative', 'payment_method', 'payment_type', 'status', 'checkout_type', 'payer', 'card_detail', 'card_refusal', 'crypto', 'fee_usd',
  'refunded_amount', 'returned_amount', 'payer_amount', 'payer_checked', 'test', 'created_at', 'updated_at', 'expires_at', 'approved_at', 'completed_at', 'cancelled_at',
] as const satisfies readonly (keyof DepositRow)[];

export type StatusViewRow = Pick<DepositRow, (typeof STATUS_VIEW_COLUMNS)[number]>;

/** A card deposit's last refused attempt as the API shows it, or null. */
function cardRefusalView(stored: unknown): Record<string, unknown> | null {
  const r = storedCardRefusal(stored);
  return r && { reason: r.reason, reason_code: r.reason_code, refused_at: formatDateTime(new Date(r.refused_at)), attempts: r.attempts };
}

/** A deposit's dispute (a chargeback) as the API shows it: amounts as exact numbers, dates as the contract writes them. */
export function disputeView(x: DepositDispute): Record<string, unknown> {
  return {
    dispute_id: x.id,
    status: disputeStatus(x.status),
    reason: x.reason,
    reason_code: x.reason_code,
    amount: fromDb(x.disputed_amount),
    currency: x.disputed_currency,
    defense_deadline: time(x.deadline_at) ?? null,
    opened_at: time(x.created_at),
    closed_at: x.status === 'reversed' ? time(x.updated_at) : null,
    debit: x.debit === null ? null : fromDb(x.debit),
    fee: x.fee === null ? null : fromDb(x.fee),
    debit_currency: x.debit_currency,
  };
}

/**
 * GET /v3/deposits/{id}. `disputes` (the deposit's chargebacks, disputesOfDeposit) is shown when
 * given: the single deposit's views load them, the list does not.
 */
export function statusView(d: StatusViewRow, disputes?: DepositDispute[]): Record<string, unknown> {
  const p = d.payer;
  return {
    deposit_id: d.id,
    invoice_id: d.invoice_id,
    user_id: d.user_id,
    country: d.country,
    currency: d.local_currency,
    usd_amount: fromDb(d.usd_amount),
    local_amount: fromDb(d.local_amount),
    amount: fromDb(d.amount),
    amount_currency: d.currency,
    // Display-only values of the request (they change no amount); 0 and false when not sent.
    bonus_amount: d.bonus_amount ? fromDb(d.bonus_amount) : dec('0'),
    bonus_relative: d.bonus_relative,
    payment_method: d.payment_method,
    payment_type: d.payment_type,
    status: d.status,
    checkout_type: d.checkout_type,
    payer: {
      id: p.id ?? d.user_id,
      document: p.document,
      document_type: p.document_type,
      first_name: p.first_name,
      last_name: p.last_name,
      email: p.email,
      phone: p.phone,
      address: p.address,
    },
    // null rather than absent: PHP integrations read these properties without isset().
    card_detail: cardDetailView(d.card_detail),
    // The last refused card attempt: the deposit stays PENDING (another card may pay it until it expires).
    card_refusal: cardRefusalView(d.card_refusal),
    crypto: cryptoView(d),
    fee_amount: fromDb(d.fee_usd),
    fee_currency: 'USD',
    refunded: fromDb(d.refunded_amount).units > 0n,
    // Completed refunds, in the deposit's currency.
    refunded_amount: fromDb(d.refunded_amount),
    // Money the payer's bank took back without the merchant asking (a Pix MED, a SPEI return, a
    // chargeback: src/deposits/returns.ts), in the deposit's local currency; the status stays COMPLETED.
    returned: returnStatusOf(d),
    returned_amount: fromDb(d.returned_amount),
    // The merchant's payer rule (payer_must_match): true, the provider reported the payer and it is
    // the deposit's; false, the provider did not report who paid; null, the rule was off.
    payer_checked: d.payer_checked,
    test: d.test,
    times: {
      created_at: time(d.created_at),
      updated_at: time(d.updated_at),
      expiration_date: time(d.expires_at),
      approved_at: time(d.approved_at),
      completed_at: time(d.completed_at),
      cancelled_at: time(d.cancelled_at),
    },
    ...(disputes ? { disputes: disputes.map(disputeView) } : {}),
  };
}

export function statusResponse(d: StatusViewRow, disputes?: DepositDispute[]): string {
  return toJson(statusView(d, disputes));
}
