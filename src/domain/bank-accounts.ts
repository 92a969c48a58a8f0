// Format and check-digit checks for bank accounts named in refunds, cashouts and
// account validation. These only catch typos and malformed data; whether an account
// exists and belongs to the beneficiary is for the bank/provider to say.

import { isValidClabe } from './clabe.ts';

export const ACCOUNT_TYPES = ['SAVING', 'CHECKING', 'VISTA', 'MASTER', 'SAVING_SET', 'CHECKING_SET', 'DEFAULT'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** One-letter codes of the form-encoded API (C current, S savings, V salary, O joint checking, P joint savings). */
const SHORT_ACCOUNT_TYPES: Record<string, AccountType> = {
  C: 'CHECKING',
  S: 'SAVING',
  V: 'VISTA',
  O: 'CHECKING_SET',
  P: 'SAVING_SET',
};

/** Canonical account type for either spelling, case-insensitive; null when unknown. */
export function normalizeAccountType(value: string): AccountType | null {
  if (typeof value !== 'string') return null;
  const upper = value.trim().toUpperCase();
  if (upper in SHORT_ACCOUNT_TYPES) return SHORT_ACCOUNT_TYPES[upper]!;
  return (ACCOUNT_TYPES as readonly string[]).includes(upper) ? (upper as AccountType) : null;
}

export interface BankAccountInput {
  account: string;
  branch?: string;
  accountType?: string;
  bankCode?: string;
}

export type BankAccountField = 'account' | 'branch' | 'account_type' | 'bank_code';
export type BankAccountResult = { ok: true } | { ok: false; field: BankAccountField; reason: string };

const fail = (field: BankAccountField, reason: string): BankAccountResult => ({ ok: false, field, reason });

/** People paste account numbers with spaces or dashes between blocks. */
function compactDigits(text: string): string {
  return text.replace(/[\s-]/g, '');
}

function weightedCheck(digits: string, weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * weights[i]!;
  return (10 - (sum % 10)) % 10;
}

/**
 * Argentine CBU (and CVU, same layout): bank 3 + branch 4 + check 1, then account 13 + check 1.
 * Each block's check digit is (10 − Σ digit×weight mod 10) mod 10.
 */
export function isValidCbu(cbu: string): boolean {
  if (!/^\d{22}$/.test(cbu)) return false;
  const first = weightedCheck(cbu.slice(0, 7), [7, 1, 3, 9, 7, 1, 3]);
  const second = weightedCheck(cbu.slice(8, 21), [3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3]);
  return first === Number(cbu[7]) && second === Number(cbu[21]);
}

/** A 3-digit numeric bank code must be the one the account number starts with; other code styles are not comparable. */
function checkBankPrefix(account: string, bankCode: string | undefined): BankAccountResult {
  if (bankCode === undefined) return { ok: true };
  const code = bankCode.trim();
  if (!/^\d+$/.test(code)) return { ok: true };
  // SPEI participant codes are 5 digits ("40072") ending in the CLABE's 3-digit bank code.
  const last3 = code.slice(-3).padStart(3, '0');
  if (code.length <= 5 && last3 !== account.slice(0, 3)) return fail('bank_code', 'does not match the bank in the account number');
  return { ok: true };
}

function validateArgentina(input: BankAccountInput): BankAccountResult {
  const account = compactDigits(input.account);
  if (!/^\d{22}$/.test(account)) return fail('account', 'must be a 22-digit CBU or CVU');
  if (!isValidCbu(account)) return fail('account', 'CBU check digits do not match');
  // CVUs (virtual wallets) start with 000 and carry the wallet's own id, not a bank code.
  if (account.startsWith('000')) return { ok: true };
  return checkBankPrefix(account, input.bankCode);
}

function validateMexico(input: BankAccountInput): BankAccountResult {
  const account = compactDigits(input.account);
  if (!/^\d{18}$/.test(account)) return fail('account', 'must be an 18-digit CLABE');
  if (!isValidClabe(account)) return fail('account', 'CLABE check digit does not match');
  return checkBankPrefix(account, input.bankCode);
}

/**
 * Brazil: agency of up to 5 digits and account of up to 13 digits (Caixa's include a
 * 3-digit operation code), each optionally followed by its check digit after a dash,
 * which may be "X" (Banco do Brasil). Check-digit rules differ per bank, so only the
 * shape is checked.
 */
function validateBrazil(input: BankAccountInput): BankAccountResult {
  const account = input.account.replace(/\s/g, '');
  if (!/^\d{1,13}(-[\dXx])?$/.test(account) || account.replace(/\D/g, '').length < 3) {
    return fail('account', 'must be up to 13 digits, optionally followed by -check digit');
  }
  if (input.branch !== undefined && input.branch.trim() !== '') {
    if (!/^\d{1,5}(-[\dXx])?$/.test(input.branch.trim())) {
      return fail('branch', 'must be up to 5 digits, optionally followed by -check digit');
    }
  }
  return { ok: true };
}

/**
 * Peru: an interbank CCI (20 digits: bank 3, branch 3, account 12, two check digits) or a
 * bank's own account number. CCI check digits are computed differently by some banks
 * (BBVA's first one, for instance), so they are not verified here.
 */
function validatePeru(input: BankAccountInput): BankAccountResult {
  const account = compactDigits(input.account);
  if (!/^\d{10,20}$/.test(account)) return fail('account', 'must be a 20-digit CCI or a 10 to 20 digit account number');
  return { ok: true };
}

function validateGeneric(input: BankAccountInput): BankAccountResult {
  const account = compactDigits(input.account);
  if (!/^\d{4,20}$/.test(account)) return fail('account', 'must be 4 to 20 digits');
  if (input.branch !== undefined && input.branch.trim() !== '' && !/^\d{1,10}$/.test(compactDigits(input.branch))) {
    return fail('branch', 'must be digits');
  }
  return { ok: true };
}

const BY_COUNTRY: Record<string, (input: BankAccountInput) => BankAccountResult> = {
  AR: validateArgentina,
  MX: validateMexico,
  BR: validateBrazil,
  PE: validatePeru,
};

/** country is ISO 3166-1 alpha-2; countries without specific rules (CO, CL, …) get the generic digit check. */
export function validateBankAccount(country: string, input: BankAccountInput): BankAccountResult {
  if (typeof input.account !== 'string' || input.account.trim() === '') return fail('account', 'is required');
  if (input.accountType !== undefined && normalizeAccountType(input.accountType) === null) {
    return fail('account_type', `must be one of ${ACCOUNT_TYPES.join(', ')} or C, S, V, O, P`);
  }
  const validate = BY_COUNTRY[country.toUpperCase()] ?? validateGeneric;
  return validate(input);
}
