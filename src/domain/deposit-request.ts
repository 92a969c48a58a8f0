// Validation of a deposit request (the v3 body; the streamline face maps its form fields onto the
// same shape) and the HOSTED / ONE_SHOT decision. Every failing field is reported at once, as
// `<field path>: <message>` details of one 201 error, so a merchant fixes a request in one round.
//
// Pure: exchange rates come in through `rateOf`, so the caller loads them beforehand.
import { isIP } from 'node:net';
import { findMethod, methodsForCountry, PAYMENT_TYPES, type PayerField, type PaymentMethod } from './catalog.ts';
import { ACCEPTED_COUNTRY_CODES, getCountry, ISO_CURRENCIES } from './countries.ts';
import { validateDocument } from './documents.ts';
import { validatePhone } from './phones.ts';
import { validateState, validateZip } from './addresses.ts';
import { checkCallbackUrl } from './urls.ts';
import { cmp, dec, type Decimal, divideRate, multiplyRate, parseAmount, rescale, toFixed } from './money.ts';
import { minorUnits } from './currencies.ts';
import type { Capabilities } from '../config/config.ts';

export type CheckoutType = 'HOSTED' | 'ONE_SHOT';

export interface Payer {
  id?: string;
  document?: string;
  document_type?: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string;
  address?: { street?: string; city?: string; state?: string; zip_code?: string };
}

export interface DepositRequest {
  country: string;
  /** In `currency`, 2 decimals. */
  amount: Decimal;
  currency: string;
  /** The country's currency and the amount in it (what the methods are priced in). */
  localCurrency: string;
  localAmount: Decimal;
  usdAmount: Decimal;
  invoiceId: string | null;
  requestPayerDataOnValidationFailure: boolean;
  /** Valid payer values only, normalised (document compacted, phone E.164, state code). */
  payer: Payer;
  /** Rule 3: invalid phone/state/zip tolerated because request_payer_data_on_validation_failure. */
  invalidPayerFields: PayerField[];
  paymentMethod: PaymentMethod | null;
  paymentType: string | null;
  paymentTypes: string[] | null;
  reportedInfo: Record<string, unknown> | null;
  bankAccount: Record<string, unknown> | null;
  crypto: Record<string, unknown> | null;
  feeOnPayer: boolean;
  surchargeOnPayer: boolean;
  bonusAmount: Decimal | null;
  bonusRelative: boolean;
  strikethroughPrice: Decimal | null;
  description: string | null;
  clientIp: string | null;
  deviceId: string | null;
  language: string | null;
  backUrl: string | null;
  successUrl: string | null;
  errorUrl: string | null;
  notificationUrl: string | null;
  logo: string | null;
  test: boolean;
  mobile: boolean;
  earlyRelease: boolean;
  checkoutType: CheckoutType;
  /** Fields the method needs that the customer will be asked for (HOSTED). */
  missingPayerFields: PayerField[];
}

export type ValidationResult = { ok: true; value: DepositRequest } | { ok: false; details: string[] };

export interface ValidateOptions {
  /** relaxedChecks (staging): callback URLs may be http on loopback hosts, internal addresses are taken. */
  checks: Pick<Capabilities, 'relaxedChecks'>;
  /** Units of a currency per 1 USD, or null when unknown. */
  rateOf: (currency: string) => Decimal | null;
  /** 128 in v3, 125 for streamline's x_invoice. */
  invoiceMaxLength?: number;
}

export const LANGUAGES = ['es', 'en', 'pt'] as const;
const INVOICE_PATTERN = /^[A-Za-z0-9_-]*$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const AMOUNT_OPTIONS = { maxIntegerDigits: 18, maxDecimals: 2 };

type Fields = Record<string, unknown>;

/** Collects details; each reader returns undefined for absent or invalid values. */
class Reader {
  readonly details: string[] = [];
  constructor(private readonly body: Fields, private readonly prefix = '') {}

  fail(field: string, message: string): undefined {
    this.details.push(`${this.prefix}${field}: ${message}`);
    return undefined;
  }

  has(field: string): boolean {
    const v = this.body[field];
    return v !== undefined && !(typeof v === 'string' && v.trim() === '');
  }

  raw(field: string): unknown {
    return this.body[field];
  }

  /** Strings; integers are taken as their digits (ids and documents often arrive as numbers). */
  string(field: string, max?: number): string | undefined {
    const v = this.body[field];
    if (v === undefined) return undefined;
    let text: string;
    if (typeof v === 'string') text = v.trim();
    else if (typeof v === 'number' && Number.isInteger(v)) text = String(v);
    else return this.fail(field, 'must be a string');
    if (text === '') return undefined;
    if (max !== undefined && text.length > max) return this.fail(field, `must be at most ${max} characters`);
    return text;
  }

  bool(field: string, def: boolean): boolean {
    const v = this.body[field];
    if (v === undefined) return def;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    this.fail(field, 'must be a boolean');
    return def;
  }

  object(field: string): Fields | undefined {
    const v = this.body[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return this.fail(field, 'must be an object');
    return v as Fields;
  }

  decimal(field: string, allowZero: boolean): Decimal | undefined {
    const v = this.body[field];
    if (v === undefined || (typeof v === 'string' && v.trim() === '')) return undefined;
    const r = parseAmount(v, { ...AMOUNT_OPTIONS, allowZero });
    if (!r.ok) {
      const reason = typeof v === 'string' || typeof v === 'number' ? r.reason : 'must be a decimal number';
      return this.fail(field, reason === 'must be a decimal number with at most 2 decimals' ? 'must be a decimal number with up to 18 integer digits and 2 decimals' : reason);
    }
    return r.value;
  }

  url(field: string, checks: Pick<Capabilities, 'relaxedChecks'>): string | undefined {
    const text = this.string(field);
    if (text === undefined) return undefined;
    const reason = checkCallbackUrl(text, checks, 2048);
    return reason ? this.fail(field, reason) : text;
  }
}

/** Why `amount` does not fit `currency`'s minor unit (cents of a peso), or null when it does. */
export function minorUnitProblem(amount: Decimal, currency: string): string | null {
  const digits = minorUnits(currency);
  if (cmp(rescale(amount, digits, 'down'), amount) === 0) return null;
  return digits === 0 ? `must be a whole number of ${currency} (${currency} has no minor unit)` : `must have at most ${digits} decimals in ${currency}`;
}

/** amount (units of `from`) in `to`, through USD; rounds once, half-up, at `scale`. */
export function convertWithRates(amount: Decimal, fromRate: Decimal, toRate: Decimal, scale = 2): Decimal {
  const product = multiplyRate(amount, toRate, amount.scale + toRate.scale);
  return divideRate(product, fromRate, scale);
}

function validatePayer(r: Reader, payerBody: Fields, country: string | undefined, tolerate: boolean, invalid: PayerField[]): Payer {
  const p = new Reader(payerBody, 'payer.');
  const payer: Payer = {};
  const id = p.string('id', 128);
  if (id !== undefined) payer.id = id;
  const first = p.string('first_name', 100);
  if (first !== undefined) payer.first_name = first;
  const last = p.string('last_name', 100);
  if (last !== undefined) payer.last_name = last;
  const email = p.string('email', 100);
  if (email !== undefined) {
    if (EMAIL.test(email)) payer.email = email;
    else p.fail('email', 'must be a valid e-mail address');
  }
  const documentType = p.string('document_type', 10);
  const document = p.string('document', 30);
  if (document !== undefined && country) {
    const d = validateDocument(country, document, documentType);
    if (d.ok) {
      payer.document = d.normalized;
      payer.document_type = d.type;
    } else p.fail('document', d.reason);
  }
  // Rule 3: an invalid phone, state or zip is an error unless the merchant asked us to collect
  // it from the customer instead; then it is dropped and remembered as invalid.
  const soft = (field: PayerField, reason: string) => {
    if (tolerate) invalid.push(field);
    else r.details.push(`${field}: ${reason}`);
  };
  const phone = p.string('phone', 30);
  if (phone !== undefined && country) {
    const ph = validatePhone(country, phone);
    if (ph.ok) payer.phone = ph.e164;
    else soft('payer.phone', ph.reason);
  }
  const address = p.object('address');
  if (address) {
    const a = new Reader(address, 'payer.address.');
    const out: NonNullable<Payer['address']> = {};
    const street = a.string('street', 255);
    if (street !== undefined) out.street = street;
    const city = a.string('city', 100);
    if (city !== undefined) out.city = city;
    const state = a.string('state', 60);
    if (state !== undefined && country) {
      const s = validateState(country, state);
      if (s.ok) out.state = s.code;
      else soft('payer.address.state', s.reason);
    }
    const zip = a.string('zip_code', 20);
    if (zip !== undefined && country) {
      const z = validateZip(country, zip);
      if (z.ok) out.zip_code = z.zip;
      else soft('payer.address.zip_code', z.reason);
    }
    r.details.push(...a.details);
    if (Object.keys(out).length > 0) payer.address = out;
  }
  r.details.push(...p.details);
  return payer;
}

/**
 * The payer rules' second face: fields a customer types on the hosted checkout, checked by the
 * same code as the API's `payer` object. Returns the normalised values and, per field path, the
 * same reason a merchant would read in a 201 detail.
 */
export function validatePayerInput(country: string, body: Record<string, unknown>): { payer: Payer; errors: Partial<Record<PayerField, string>> } {
  const r = new Reader({});
  const payer = validatePayer(r, body, country, false, []);
  const errors: Partial<Record<PayerField, string>> = {};
  for (const detail of r.details) {
    const at = detail.indexOf(': ');
    errors[detail.slice(0, at) as PayerField] ??= detail.slice(at + 2);
  }
  return { payer, errors };
}

/** Whether the payer carries a (valid) value for a catalog field path. */
export function payerHas(payer: Payer, field: PayerField): boolean {
  switch (field) {
    case 'payer.document': return !!payer.document;
    case 'payer.first_name': return !!payer.first_name;
    case 'payer.last_name': return !!payer.last_name;
    case 'payer.email': return !!payer.email;
    case 'payer.phone': return !!payer.phone;
    case 'payer.address.street': return !!payer.address?.street;
    case 'payer.address.city': return !!payer.address?.city;
    case 'payer.address.state': return !!payer.address?.state;
    case 'payer.address.zip_code': return !!payer.address?.zip_code;
  }
}

/**
 * ONE_SHOT when a method is chosen, the customer needs no page of ours to enter anything (cards
 * need the card details), and every payer field the method requires is present and valid.
 */
export function decideCheckout(method: PaymentMethod | null, payer: Payer): { checkoutType: CheckoutType; missing: PayerField[] } {
  if (!method) return { checkoutType: 'HOSTED', missing: [] };
  const missing = method.requiredPayerFields.filter((f) => !payerHas(payer, f));
  const oneShot = missing.length === 0 && method.kind !== 'card';
  return { checkoutType: oneShot ? 'ONE_SHOT' : 'HOSTED', missing };
}

/** A 201 detail when the local amount is outside the method's bounds. */
export function methodAmountProblem(method: PaymentMethod, localAmount: Decimal): string | null {
  const lo = dec(method.minAmount);
  const hi = dec(method.maxAmount);
  const name = `${method.code} (${method.name})`;
  if (cmp(localAmount, lo) < 0) return `amount: ${toFixed(localAmount, minorUnits(method.currency))} ${method.currency} is below the minimum of ${method.minAmount} ${method.currency} for ${name}`;
  if (cmp(localAmount, hi) > 0) return `amount: ${toFixed(localAmount, minorUnits(method.currency))} ${method.currency} is above the maximum of ${method.maxAmount} ${method.currency} for ${name}`;
  return null;
}

function typeList(r: Reader, field: string, value: unknown): string[] | undefined {
  const allowed = ['ALL', ...PAYMENT_TYPES];
  const check = (v: unknown, path: string): string | undefined => {
    if (typeof v !== 'string') return r.fail(path, 'must be a string');
    const t = v.trim().toUpperCase();
    if (!allowed.includes(t)) return r.fail(path, `must be one of ${allowed.join(', ')}`);
    return t;
  };
  if (field === 'payment_type') {
    const t = check(value, field);
    return t === undefined ? undefined : [t];
  }
  if (!Array.isArray(value)) return r.fail(field, 'must be an array of strings');
  const out: string[] = [];
  value.forEach((v, i) => {
    const t = check(v, `${field}[${i}]`);
    if (t) out.push(t);
  });
  return out;
}

export function validateDepositRequest(body: unknown, opts: ValidateOptions): ValidationResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, details: ['body: must be a JSON object'] };
  }
  const r = new Reader(body as Fields);

  // country
  let country: string | undefined;
  const rawCountry = r.raw('country');
  if (rawCountry === undefined || (typeof rawCountry === 'string' && rawCountry.trim() === '')) r.fail('country', 'is required');
  else if (typeof rawCountry !== 'string') r.fail('country', 'must be a string');
  else {
    const code = rawCountry.trim().toUpperCase();
    if (code.length !== 2 || !getCountry(code)) {
      r.fail('country', `must be one of ${ACCEPTED_COUNTRY_CODES.join(', ')}`);
    } else country = code;
  }

  // amount
  let amount: Decimal | undefined;
  if (!r.has('amount')) r.fail('amount', 'is required');
  else amount = r.decimal('amount', false);

  // currency
  let currency: string | undefined = 'USD';
  if (r.has('currency')) {
    const c = r.string('currency');
    if (c === undefined) currency = undefined;
    else if (c.length !== 3) currency = r.fail('currency', 'must be 3 letters (ISO 4217)');
    else if (!ISO_CURRENCIES.has(c.toUpperCase())) currency = r.fail('currency', `'${c}' is not an ISO 4217 currency code`);
    else currency = c.toUpperCase();
  }

  // An amount is never rounded: cents in a currency without them (CLP, PYG…) are refused.
  if (amount && currency) {
    const problem = minorUnitProblem(amount, currency);
    if (problem) r.fail('amount', problem);
  }

  // invoice_id
  const invoiceMax = opts.invoiceMaxLength ?? 128;
  let invoiceId: string | null = null;
  const inv = r.string('invoice_id', invoiceMax);
  if (inv !== undefined) {
    if (INVOICE_PATTERN.test(inv)) invoiceId = inv;
    else r.fail('invoice_id', 'must match the pattern ^[A-Za-z0-9-_]*$');
  }

  const tolerate = r.bool('request_payer_data_on_validation_failure', false);

  // payment_method
  let method: PaymentMethod | null = null;
  const code = r.string('payment_method', 3);
  if (code !== undefined && country) {
    const found = findMethod(country, code);
    if (found) method = found;
    else r.fail('payment_method', `'${code}' is not offered in ${country}; offered: ${methodsForCountry(country).map((m) => m.code).join(', ')}`);
  }

  let paymentType: string | null = null;
  if (r.has('payment_type')) paymentType = typeList(r, 'payment_type', r.raw('payment_type'))?.[0] ?? null;
  let paymentTypes: string[] | null = null;
  if (r.raw('payment_types') !== undefined) paymentTypes = typeList(r, 'payment_types', r.raw('payment_types')) ?? null;

  // payer
  const invalid: PayerField[] = [];
  const payerBody = r.object('payer');
  const payer = payerBody ? validatePayer(r, payerBody, country, tolerate, invalid) : {};

  const reportedInfo = r.object('reported_info') ?? null;
  const bankAccount = r.object('bank_account') ?? null;
  const crypto = r.object('crypto') ?? null;
  const feeOnPayer = r.bool('fee_on_payer', false);
  const surchargeOnPayer = r.bool('surcharge_on_payer', true);
  const bonusAmount = r.decimal('bonus_amount', true) ?? null;
  const bonusRelative = r.bool('bonus_relative', false);
  const strikethroughPrice = r.decimal('strikethrough_price', true) ?? null;
  const description = r.string('description', 100) ?? null;

  let clientIp: string | null = null;
  const ip = r.string('client_ip', 64);
  if (ip !== undefined) {
    if (isIP(ip)) clientIp = ip;
    else r.fail('client_ip', 'must be a valid IPv4 or IPv6 address');
  }
  const deviceId = r.string('device_id', 100) ?? null;

  let language: string | null = null;
  const lang = r.string('language');
  if (lang !== undefined) {
    if ((LANGUAGES as readonly string[]).includes(lang.toLowerCase())) language = lang.toLowerCase();
    else r.fail('language', `must be one of ${LANGUAGES.join(', ')}`);
  }

  const backUrl = r.url('back_url', opts.checks) ?? null;
  const successUrl = r.url('success_url', opts.checks) ?? null;
  const errorUrl = r.url('error_url', opts.checks) ?? null;
  const notificationUrl = r.url('notification_url', opts.checks) ?? null;
  const logo = r.url('logo', opts.checks) ?? null;
  const test = r.bool('test', false);
  const mobile = r.bool('mobile', false);
  const earlyRelease = r.bool('early_release', false);

  // Conversions need a valid amount, currency and country.
  let localAmount: Decimal | undefined;
  let usdAmount: Decimal | undefined;
  const localCurrency = country ? getCountry(country)!.currency : undefined;
  if (amount && currency && localCurrency) {
    const fromRate = opts.rateOf(currency);
    const localRate = opts.rateOf(localCurrency);
    if (!fromRate) r.fail('currency', `no exchange rate is available for ${currency}`);
    else if (!localRate) r.fail('country', `no exchange rate is available for ${localCurrency}`);
    else {
      // Each converted amount is rounded once, half-up, to its currency's minor unit.
      localAmount = convertWithRates(amount, fromRate, localRate, minorUnits(localCurrency));
      usdAmount = convertWithRates(amount, fromRate, dec('1'), minorUnits('USD'));
      if (method) {
        const problem = methodAmountProblem(method, localAmount);
        if (problem) r.details.push(problem);
      }
    }
  }

  if (r.details.length > 0 || !country || !amount || !currency || !localAmount || !usdAmount || !localCurrency) {
    return { ok: false, details: r.details.length > 0 ? r.details : ['body: invalid request'] };
  }

  const decision = decideCheckout(method, payer);
  // Rule 3: a tolerated invalid field the method needs sends the customer to the hosted page.
  const needsCorrection = method !== null && invalid.some((f) => method!.requiredPayerFields.includes(f));
  const checkoutType: CheckoutType = needsCorrection ? 'HOSTED' : decision.checkoutType;

  return {
    ok: true,
    value: {
      country, amount, currency, localCurrency, localAmount, usdAmount, invoiceId,
      requestPayerDataOnValidationFailure: tolerate,
      payer, invalidPayerFields: invalid,
      paymentMethod: method, paymentType, paymentTypes,
      reportedInfo, bankAccount, crypto,
      feeOnPayer, surchargeOnPayer, bonusAmount, bonusRelative, strikethroughPrice, description,
      clientIp, deviceId, language, backUrl, successUrl, errorUrl, notificationUrl, logo,
      test, mobile, earlyRelease,
      checkoutType,
      missingPayerFields: decision.missing,
    },
  };
}
