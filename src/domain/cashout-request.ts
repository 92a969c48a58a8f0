// Validation of a cashout creation body (POST /v3/cashout), pure. Every failing field is
// reported at once. The beneficiary's document, bank and account go through the same rules as
// refunds and account validation (documents.ts, banks.ts, bank-accounts.ts): no second copy.
//
// Existing clients send numbers as strings ("amount": "3.3", "bank_code": "003") and booleans
// as strings ("on_hold": "true"); both are read.
import { normalizeAccountType, validateBankAccount } from './bank-accounts.ts';
import { findBank } from './banks.ts';
import { minorUnits } from './currencies.ts';
import { getCountry } from './countries.ts';
import { validateDocument } from './documents.ts';
import { type Decimal, parseAmount } from './money.ts';
import { validatePhone } from './phones.ts';
import { classifyPixKey } from './pix.ts';
import { checkCallbackUrl } from './urls.ts';
import type { Capabilities } from '../config/config.ts';

export interface CashoutRequest {
  externalId: string;
  country: string;
  /** USD or the country's currency. */
  currency: string;
  localCurrency: string;
  amount: Decimal;
  documentId: string;
  documentType: string | null;
  beneficiaryName: string;
  beneficiaryLastname: string | null;
  bankCode: string | null;
  bankName: string | null;
  bankAccount: string;
  bankBranch: string | null;
  accountType: string | null;
  email: string | null;
  phone: string | null;
  address: string | null;
  notificationUrl: string | null;
  comments: string | null;
  onHold: boolean;
  /**
   * caja's extension (BR only): the beneficiary's Pix key, as the DICT stores it (classifyPixKey).
   * A cashout that names one is sent to the key; the bank account stays its record.
   */
  pixKey: string | null;
}

export type CashoutValidation = { ok: true; value: CashoutRequest } | { ok: false; details: string[] };

const EXTERNAL_ID = /^[\w.:-]{1,100}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A scalar as text: strings as sent, finite numbers by their digits; anything else is absent. */
function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

function flag(v: unknown): boolean | null {
  if (v === undefined || v === null || v === false || v === 'false' || v === 0 || v === '0' || v === '') return false;
  if (v === true || v === 'true' || v === 1 || v === '1') return true;
  return null;
}

export function validateCashoutRequest(body: Record<string, unknown>, checks: Pick<Capabilities, 'relaxedChecks'>): CashoutValidation {
  const details: string[] = [];
  const need = (field: string, max: number): string | undefined => {
    const v = text(body[field]);
    if (v === undefined) {
      if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'string') details.push(`${field}: must be a string`);
      else details.push(`${field}: is required`);
      return undefined;
    }
    if (v.length > max) details.push(`${field}: must be at most ${max} characters`);
    return v;
  };
  const optional = (field: string, max: number): string | null => {
    const raw = body[field];
    if (raw === undefined || raw === null) return null;
    const v = text(raw);
    if (v === undefined) {
      if (typeof raw !== 'string') details.push(`${field}: must be a string`);
      return null;
    }
    if (v.length > max) details.push(`${field}: must be at most ${max} characters`);
    return v;
  };

  const externalId = need('external_id', 100);
  if (externalId !== undefined && !EXTERNAL_ID.test(externalId)) details.push('external_id: may contain only letters, digits and . _ : -');

  const countryCode = need('country', 2)?.toUpperCase();
  const country = countryCode ? getCountry(countryCode) : undefined;
  if (countryCode && !country) details.push(`country: '${countryCode}' is not accepted`);

  const currency = (text(body.currency) ?? 'USD').toUpperCase();
  if (country && currency !== 'USD' && currency !== country.currency) details.push(`currency: must be USD or ${country.currency}`);

  let amount: Decimal | undefined;
  const decimals = country && currency === country.currency ? Math.min(2, minorUnits(currency)) : 2;
  const parsed = body.amount === undefined || body.amount === null ? null : parseAmount(body.amount, { maxDecimals: decimals });
  if (!parsed) details.push('amount: is required');
  else if (!parsed.ok) details.push(`amount: ${parsed.reason}`);
  else amount = parsed.value;

  const documentId = need('document_id', 30);
  const documentType = optional('document_type', 10);
  if (country && documentId) {
    const doc = validateDocument(country.code, documentId, documentType ?? undefined);
    if (!doc.ok) details.push(`document_id: ${doc.reason}`);
  }

  const beneficiaryName = need('beneficiary_name', 100);
  const beneficiaryLastname = optional('beneficiary_lastname', 100);

  const bankCode = optional('bank_code', 10);
  let bankName: string | null = null;
  let bankKnown = false;
  if (country && bankCode !== null) {
    const bank = findBank(country.code, bankCode);
    if (!bank) details.push(`bank_code: '${bankCode}' is not a bank of ${country.code} (see GET /v3/banks?country=${country.code})`);
    else {
      bankName = bank.name;
      bankKnown = true;
    }
  } else if (country && bankCode === null && body.bank_code === undefined) {
    details.push('bank_code: is required');
  }
  const bankAccount = need('bank_account', 45);
  const bankBranch = optional('bank_branch', 45);
  const rawType = optional('account_type', 20);
  const accountType = rawType === null ? null : normalizeAccountType(rawType);
  if (country && bankAccount) {
    const check = validateBankAccount(country.code, {
      account: bankAccount,
      branch: bankBranch ?? undefined,
      accountType: rawType ?? undefined,
      // An unknown bank is reported once, above; a known one is checked against the account.
      bankCode: bankKnown ? bankCode! : undefined,
    });
    if (!check.ok) details.push(`${check.field === 'account' ? 'bank_account' : check.field === 'branch' ? 'bank_branch' : check.field}: ${check.reason}`);
  }

  const email = optional('email', 100);
  if (email !== null && !EMAIL.test(email)) details.push('email: must be an e-mail address');
  const phone = optional('phone', 20);
  if (phone !== null && country) {
    const p = validatePhone(country.code, phone);
    if (!p.ok) details.push(`phone: ${p.reason}`);
  }
  const address = optional('address', 200);
  const comments = optional('comments', 200);
  const notificationUrl = optional('notification_url', 2048);
  if (notificationUrl !== null) {
    const reason = checkCallbackUrl(notificationUrl, checks);
    if (reason) details.push(`notification_url: ${reason}`);
  }
  const rawPixKey = optional('pix_key', 77);
  let pixKey: string | null = null;
  if (rawPixKey !== null && country) {
    if (country.code !== 'BR') details.push(`pix_key: is accepted for BR cashouts only`);
    else {
      const key = classifyPixKey(rawPixKey);
      if (!key.ok) details.push(`pix_key: ${key.reason}`);
      else pixKey = key.normalized;
    }
  }
  const onHold = flag(body.on_hold);
  if (onHold === null) details.push('on_hold: must be true or false');

  if (details.length || !country || !amount || !externalId || !documentId || !beneficiaryName || !bankAccount) {
    return { ok: false, details: details.length ? details : ['body: invalid'] };
  }
  return {
    ok: true,
    value: {
      externalId, country: country.code, currency, localCurrency: country.currency, amount, documentId, documentType,
      beneficiaryName, beneficiaryLastname, bankCode, bankName, bankAccount, bankBranch, accountType,
      email, phone, address, notificationUrl, comments, onHold: onHold === true, pixKey,
    },
  };
}
