// Between caja's charges and Adyen's Checkout API v71: which catalog methods Adyen serves, amounts
// in minor units, the hosted-checkout session and voucher payment bodies, the voucher action as
// payment_info, a session result as the return leg's answer, the masked card. Pure.
import { type Decimal, eq, rescale, toFixed } from '../../domain/money.ts';
import { depositReference, formatDateTime, type PaymentInfo } from '../../domain/payment-info.ts';
import { newReference, UPPER_ALPHANUMERIC } from '../../domain/references.ts';
import type { CardDetail } from '../../domain/cards.ts';
import { boletoFromDigitableLine } from '../../domain/vouchers.ts';
import type { ChargeOrder, ProviderPayment, ReturnResult } from '../payin.ts';

/** Catalog method code → Adyen paymentMethod type, per country ('scheme': a card on the hosted page). */
export const ADYEN_METHODS: Record<string, Record<string, 'scheme' | 'boletobancario' | 'oxxo'>> = {
  BR: { VI: 'scheme', MC: 'scheme', BL: 'boletobancario' },
  MX: { VI: 'scheme', MC: 'scheme', OX: 'oxxo' },
};

export const adyenType = (country: string, code: string) => ADYEN_METHODS[country.trim().toUpperCase()]?.[code.trim().toUpperCase()];

/** caja's reference of a charge at Adyen (the merchantReference): random, so it stays unique after a restore. */
export const newMerchantReference = () => newReference('CJ', 24, UPPER_ALPHANUMERIC);

/** An amount as Adyen's {value, currency}: minor units (BRL and MXN have 2 decimals). */
export function minorUnits(amount: Decimal, currency: string): { value: number; currency: string } {
  const cents = rescale(amount, 2);
  if (!eq(cents, amount)) throw new RangeError(`${toFixed(amount, 4)} ${currency} has more than 2 decimals`);
  return { value: Number(cents.units), currency };
}

export const fromMinor = (value: number): Decimal => ({ units: BigInt(value), scale: 2 });

/** POST /sessions for a card charge: Adyen's hosted checkout, the customer sent back to the return leg. */
export function sessionBody(order: ChargeOrder, merchantAccount: string, reference: string, returnUrl: string) {
  return {
    merchantAccount, reference, returnUrl, mode: 'hosted', countryCode: order.method.country,
    amount: minorUnits(order.amount, order.method.currency), allowedPaymentMethods: ['scheme'],
    expiresAt: order.expiresAt.toISOString(), shopperLocale: order.method.country === 'BR' ? 'pt-BR' : 'es-MX',
    ...(order.description ? { description: order.description.slice(0, 200) } : {}),
  };
}

function splitName(name: string | null | undefined): { firstName: string; lastName: string } | undefined {
  const parts = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return undefined;
  return { firstName: parts[0]!, lastName: parts.slice(1).join(' ') || parts[0]! };
}

/** POST /payments for a voucher (boletobancario, oxxo): answered with a voucher action. */
export function voucherBody(order: ChargeOrder, type: 'boletobancario' | 'oxxo', merchantAccount: string, reference: string, returnUrl: string) {
  const shopperName = splitName(order.payer.name);
  return {
    merchantAccount, reference, returnUrl, countryCode: order.method.country, amount: minorUnits(order.amount, order.method.currency),
    paymentMethod: { type },
    ...(shopperName ? { shopperName } : {}),
    ...(type === 'boletobancario'
      ? { socialSecurityNumber: (order.payer.document ?? '').replace(/\D/g, ''), deliveryDate: order.expiresAt.toISOString() }
      : { expiresAt: order.expiresAt.toISOString() }),
  };
}

/** The voucher action Adyen answered, as the deposit's payment_info (what the pages show). Throws when it is not one. */
export function paymentInfoFromVoucher(order: ChargeOrder, pspReference: string, action: unknown): PaymentInfo {
  const a = (action && typeof action === 'object' ? action : {}) as Record<string, unknown>;
  if (a.type !== 'voucher' || typeof a.reference !== 'string' || !a.reference) throw new Error('the answer has no voucher action with a reference');
  const ref = a.reference;
  // A boleto's bar code is the digitable line's fields regrouped (FEBRABAN), every check digit
  // verified: never a number of caja's own; an OXXO reference is what its bar code encodes.
  const boleto = a.paymentMethodType === 'boletobancario' ? boletoFromDigitableLine(ref) : null;
  const barCode = boleto ? (boleto.ok ? boleto.barCode : null) : ref.replace(/\s/g, '');
  const expires = typeof a.expiresAt === 'string' && !Number.isNaN(Date.parse(a.expiresAt)) ? new Date(a.expiresAt) : order.expiresAt;
  const metadata: Record<string, string> = { reference: depositReference(order.depositId), digitable_line: ref, psp_reference: pspReference };
  if (barCode) metadata.bar_code = barCode;
  if (typeof a.downloadUrl === 'string' && /^https:\/\//.test(a.downloadUrl)) metadata.receipt_url = a.downloadUrl;
  if (typeof a.instructionsUrl === 'string' && /^https:\/\//.test(a.instructionsUrl)) metadata.instructions_url = a.instructionsUrl;
  if (typeof a.alternativeReference === 'string') metadata.alternative_reference = a.alternativeReference;
  return {
    type: order.method.type, payment_method: order.method.code, payment_method_name: order.method.name, amount: order.amount,
    currency: order.method.currency, expiration_date: formatDateTime(expires), created_at: formatDateTime(order.createdAt), metadata,
  };
}

const BRANDS: Record<string, string> = { visa: 'VISA', mc: 'MASTERCARD', amex: 'AMEX', elo: 'ELO', hipercard: 'HIPERCARD' };

/** The card as caja keeps it: brand and last four only (Adyen's cardSummary), never more (not even the holder's name). */
export function cardFrom(brand: string | null | undefined, last4: string | null | undefined): CardDetail | undefined {
  if (!last4 || !/^\d{4}$/.test(last4)) return undefined;
  return { card_holder: '', masked_card: `************${last4}`, brand: BRANDS[(brand ?? '').toLowerCase()] ?? (brand ?? 'OTHER').toUpperCase(), expiration: '' };
}

/**
 * GET /sessions/{id}?sessionResult=… as the return leg's answer. The session must be the charge's
 * (its reference); completed with an Authorised payment of the charge's amount is paid (with the
 * payment, recorded once under its pspReference), refused / canceled / expired failed, anything
 * else pending (the notification decides).
 */
export function sessionResult(body: unknown, reference: string, expected: { value: number; currency: string }, merchantAccount: string): ReturnResult & { payment?: ProviderPayment } {
  const b = (body && typeof body === 'object' ? body : {}) as { status?: unknown; reference?: unknown; payments?: unknown; additionalData?: Record<string, unknown> };
  if (b.reference !== reference) return { status: 'failed', reason: 'the session is not this charge\'s' };
  switch (b.status) {
    case 'completed': {
      const list = Array.isArray(b.payments) ? (b.payments as Array<Record<string, any>>) : [];
      const p = list.find((x) => x?.resultCode === 'Authorised');
      if (!p || typeof p.pspReference !== 'string') return { status: 'pending' };
      if (p.amount?.value !== expected.value || p.amount?.currency !== expected.currency) return { status: 'failed', reason: 'the authorised amount is not the charge\'s' };
      const ad = b.additionalData ?? {};
      const card = cardFrom(String(p.paymentMethod?.brand ?? ad.paymentMethod ?? ''), typeof ad.cardSummary === 'string' ? ad.cardSummary : null);
      return {
        status: 'paid', ...(card ? { card } : {}),
        payment: { id: p.pspReference, chargeReference: reference, amount: fromMinor(p.amount.value), currency: p.amount.currency, receiver: merchantAccount, paidAt: new Date(), raw: { paymentMethod: 'scheme', brand: p.paymentMethod?.brand ?? null, source: 'session result' } },
      };
    }
    // The session is over: the next visit to the checkout opens a new one (another card).
    case 'refused': return { status: 'failed', reason: 'Refused', final: true };
    case 'canceled': return { status: 'failed', reason: 'Cancelled', final: true };
    case 'expired': return { status: 'failed', reason: 'Expired', final: true };
    default: return { status: 'pending' };
  }
}

/** The refund body: POST /payments/{pspReference}/refunds. */
export function refundBody(merchantAccount: string, amount: Decimal, currency: string, reference: string) {
  return { merchantAccount, amount: minorUnits(amount, currency), reference };
}
