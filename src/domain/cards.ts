// Card rules of the staging card step: Luhn check, brand from the number's prefix, expiry and
// CVC checks, the masked form that is all we ever keep ("411111******1111"), and what the staging
// simulator answers for a number. Pure. Production card capture belongs to the connector: a real
// card number never reaches caja's own code there.

export type CardBrand = 'VISA' | 'MASTERCARD' | 'AMEX' | 'OTHER';

/** What the staging simulator does with a card: approve, decline, or ask for a 3-D Secure step. */
export type CardOutcome = 'approve' | 'decline' | 'challenge';

/**
 * Documented staging test numbers (docs/checkout.md). Any other number that passes the checks
 * is approved, so a merchant's own test cards work too.
 */
export const TEST_CARDS: Readonly<Record<string, { brand: CardBrand; outcome: CardOutcome }>> = {
  '4111111111111111': { brand: 'VISA', outcome: 'approve' },
  '5555555555554444': { brand: 'MASTERCARD', outcome: 'approve' },
  '4000000000000002': { brand: 'VISA', outcome: 'decline' },
  '5105105105105100': { brand: 'MASTERCARD', outcome: 'decline' },
  '4000000000003220': { brand: 'VISA', outcome: 'challenge' },
  '5200000000001096': { brand: 'MASTERCARD', outcome: 'challenge' },
};

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function cardBrand(digits: string): CardBrand {
  if (/^4/.test(digits)) return 'VISA';
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'MASTERCARD';
  if (/^3[47]/.test(digits)) return 'AMEX';
  return 'OTHER';
}

/** The catalog's card method codes that take only one brand. */
const BRAND_OF_METHOD: Record<string, CardBrand> = { VI: 'VISA', MC: 'MASTERCARD' };

/** First six and last four digits, the rest masked: what PCI DSS allows to be kept and shown. */
export function maskCard(digits: string): string {
  return `${digits.slice(0, 6)}${'*'.repeat(Math.max(0, digits.length - 10))}${digits.slice(-4)}`;
}

export interface CardInput {
  number?: string;
  expiry?: string;
  cvc?: string;
  holder?: string;
}

export type CardField = 'number' | 'expiry' | 'cvc' | 'holder';

/** Why a field was refused, as a key the pages translate. */
export type CardProblem = 'required' | 'number_invalid' | 'brand_mismatch' | 'expiry_invalid' | 'expired' | 'cvc_invalid' | 'holder_invalid';

export interface CheckedCard {
  digits: string;
  brand: CardBrand;
  /** MM/YY */
  expiration: string;
  holder: string;
}

export type CardCheck = { ok: true; card: CheckedCard } | { ok: false; errors: Partial<Record<CardField, CardProblem>> };

/**
 * Checks what the customer typed. `methodCode` is the chosen card method: Visa (VI) and
 * Mastercard (MC) take only their own brand; other card methods (Webpay, RuPay, Verve) any.
 */
export function checkCard(input: CardInput, methodCode: string, now: Date): CardCheck {
  const errors: Partial<Record<CardField, CardProblem>> = {};
  const digits = (input.number ?? '').replace(/[\s-]/g, '');
  const brand = cardBrand(digits);
  if (!digits) errors.number = 'required';
  else if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) errors.number = 'number_invalid';
  else if (BRAND_OF_METHOD[methodCode] && BRAND_OF_METHOD[methodCode] !== brand) errors.number = 'brand_mismatch';

  const exp = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(input.expiry ?? '');
  let expiration = '';
  if (!(input.expiry ?? '').trim()) errors.expiry = 'required';
  else if (!exp || Number(exp[1]) < 1 || Number(exp[1]) > 12) errors.expiry = 'expiry_invalid';
  else {
    const month = Number(exp[1]);
    const year = exp[2]!.length === 2 ? 2000 + Number(exp[2]) : Number(exp[2]);
    // A card is valid through the last day of its expiry month.
    const endOfMonth = Date.UTC(year, month, 1);
    if (endOfMonth <= now.getTime()) errors.expiry = 'expired';
    else expiration = `${String(month).padStart(2, '0')}/${String(year % 100).padStart(2, '0')}`;
  }

  const cvc = (input.cvc ?? '').trim();
  if (!cvc) errors.cvc = 'required';
  else if (!(brand === 'AMEX' ? /^\d{4}$/ : /^\d{3}$/).test(cvc)) errors.cvc = 'cvc_invalid';

  const holder = (input.holder ?? '').trim().replace(/\s+/g, ' ');
  if (!holder) errors.holder = 'required';
  else if (holder.length > 100 || /[\d<>]/.test(holder)) errors.holder = 'holder_invalid';

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, card: { digits, brand, expiration, holder } };
}

/** The staging simulator's answer for a checked card. */
export function stagingOutcome(digits: string): CardOutcome {
  return TEST_CARDS[digits]?.outcome ?? 'approve';
}

/**
 * A card deposit's last refused attempt (deposits.card_refusal): the acquirer's reason and code,
 * when, and how many attempts were refused. The deposit stays PENDING (another card may pay it
 * until it expires); the API shows this.
 */
export interface CardRefusal {
  reason: string;
  reason_code: string | null;
  /** ISO 8601. */
  refused_at: string;
  attempts: number;
}

/** The stored card_refusal, read defensively (only its four keys, typed). */
export function storedCardRefusal(v: unknown): CardRefusal | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  if (typeof o.reason !== 'string' || typeof o.refused_at !== 'string') return null;
  return {
    reason: o.reason, reason_code: typeof o.reason_code === 'string' ? o.reason_code : null, refused_at: o.refused_at,
    attempts: typeof o.attempts === 'number' && Number.isSafeInteger(o.attempts) ? o.attempts : 1,
  };
}

/**
 * Streamline's x_approval_detail of a card deposit: Approved when completed; while it is pending
 * after a refused attempt, "Refused: <reason>" (the customer may still pay with another card); when
 * cancelled, "Not approved", with the last refusal's reason when a card was refused.
 */
export function approvalDetail(status: string, refusal: CardRefusal | null): string {
  if (status === 'COMPLETED') return 'Approved';
  if (status === 'CANCELLED') return refusal ? `Not approved: ${refusal.reason}` : 'Not approved';
  return refusal ? `Refused: ${refusal.reason}` : 'Pending';
}

/** The deposits.card_detail shape: never the full number, never the CVC. */
export interface CardDetail {
  card_holder: string;
  masked_card: string;
  brand: string;
  expiration: string;
}

export function cardDetail(card: CheckedCard): CardDetail {
  return { card_holder: card.holder, masked_card: maskCard(card.digits), brand: card.brand, expiration: card.expiration };
}
