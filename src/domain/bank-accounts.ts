// The one set of bank-account rules, used by refunds (both faces), cashouts and v5 account
// validation: per country the shape of account, branch and account type, the check digits
// where a public algorithm exists, and that the bank is a real participant of the country's
// registry (src/domain/banks). These catch typos and malformed data only; whether an account
// exists and belongs to the beneficiary is the bank's answer (src/connectors/account-registry.ts).

import { findBank } from './banks.ts';
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
/** What a refund form says of an account type normalizeAccountType does not know (v3 and the panel). */
export const ACCOUNT_TYPE_MESSAGE = `must be one of ${ACCOUNT_TYPES.join(', ')}`;

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
/** Which kind of check failed; v5 validation names it in its 302 answer. */
export type BankAccountCheck = 'format' | 'check_digit' | 'unknown_bank';
export type BankAccountFailure = { ok: false; field: BankAccountField; reason: string; check: BankAccountCheck };
export type BankAccountResult = { ok: true } | BankAccountFailure;

const OK: BankAccountResult = { ok: true };
const fail = (field: BankAccountField, reason: string, check: BankAccountCheck = 'format'): BankAccountFailure => ({ ok: false, field, reason, check });

/** People paste account numbers with spaces, dots or dashes between blocks. */
function compactDigits(text: string): string {
  return text.replace(/[\s.-]/g, '');
}

const digitsOf = (text: string) => [...text].map(Number);

/** Σ digit × weight, left to right. */
function weightedSum(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * weights[i % weights.length]!;
  return sum;
}

/** Σ of the digits of each product (the "mod 10, weights 2-1" family: Itaú, Luhn-like CCI). */
function digitSumOfProducts(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const p = Number(digits[i]) * weights[i % weights.length]!;
    sum += Math.floor(p / 10) + (p % 10);
  }
  return sum;
}

const mod10 = (sum: number) => (10 - (sum % 10)) % 10;

// ---------------------------------------------------------------------------------------------
// Argentina: CBU / CVU

/**
 * Argentine CBU (and CVU, same layout): bank 3 + branch 4 + check 1, then account 13 + check 1.
 * Each block's check digit is (10 − Σ digit×weight mod 10) mod 10 (BCRA, Comunicación A 2205).
 */
export function isValidCbu(cbu: string): boolean {
  if (!/^\d{22}$/.test(cbu)) return false;
  const first = mod10(weightedSum(cbu.slice(0, 7), [7, 1, 3, 9, 7, 1, 3]));
  const second = mod10(weightedSum(cbu.slice(8, 21), [3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3]));
  return first === Number(cbu[7]) && second === Number(cbu[21]);
}

/**
 * A bank_code, when sent, must be a bank of the country's registry and, where the account
 * number embeds its bank (CBU, CLABE, CCI), the same one.
 */
function checkBankCode(country: string, bankCode: string | undefined, embedded?: string): BankAccountResult {
  if (bankCode === undefined || bankCode.trim() === '') return OK;
  const bank = findBank(country, bankCode);
  if (!bank) return fail('bank_code', `is not a bank of ${country} (see GET /v3/banks?country=${country})`, 'unknown_bank');
  if (embedded !== undefined && bank.code !== Number(embedded)) return fail('bank_code', 'does not match the bank in the account number');
  return OK;
}

/**
 * Whether the account number itself names its bank (an Argentine CBU that is not a CVU, a
 * Mexican CLABE, a Peruvian CCI): a bank_code sent with it must then be that bank.
 */
export function accountEmbedsBank(country: string, account: string): boolean {
  const digits = compactDigits(account);
  switch (country.trim().toUpperCase()) {
    case 'AR': return /^\d{22}$/.test(digits) && !digits.startsWith('000');
    case 'MX': return /^\d{18}$/.test(digits);
    case 'PE': return /^\d{20}$/.test(digits);
    default: return false;
  }
}

function validateArgentina(input: BankAccountInput): BankAccountResult {
  const account = compactDigits(input.account);
  if (!/^\d{22}$/.test(account)) return fail('account', 'must be a 22-digit CBU or CVU');
  if (!isValidCbu(account)) return fail('account', 'CBU check digits do not match', 'check_digit');
  // CVUs (virtual wallets) start with 000 and carry the wallet's own id, not a bank code.
  if (account.startsWith('000')) return checkBankCode('AR', input.bankCode);
  if (!findBank('AR', account.slice(0, 3))) return fail('account', `starts with ${account.slice(0, 3)}, which is not a BCRA entity code`, 'unknown_bank');
  return checkBankCode('AR', input.bankCode, account.slice(0, 3));
}

// ---------------------------------------------------------------------------------------------
// Mexico: CLABE

function validateMexico(input: BankAccountInput): BankAccountResult {
  const account = compactDigits(input.account);
  if (!/^\d{18}$/.test(account)) return fail('account', 'must be an 18-digit CLABE');
  if (!isValidClabe(account)) return fail('account', 'CLABE check digit does not match', 'check_digit');
  if (!findBank('MX', account.slice(0, 3))) return fail('account', `starts with ${account.slice(0, 3)}, which is not a SPEI participant`, 'unknown_bank');
  return checkBankCode('MX', input.bankCode, account.slice(0, 3));
}

// ---------------------------------------------------------------------------------------------
// Peru: CCI

/**
 * CCI (Código de Cuenta Interbancario, 20 digits): bank 3 + branch 3 + account 12 + two check
 * digits, the first over bank and branch, the second over the account, each "mod 10 with
 * weights 1, 2" (products above 9 count their digits), as the CCE publishes it. BBVA (011)
 * computes its first digit over its own 4-digit office code instead, so only its second digit
 * is verified: rejecting a real BBVA CCI would cost more than missing a typo in its office part.
 */
export function isValidCci(cci: string): boolean {
  if (!/^\d{20}$/.test(cci)) return false;
  const first = mod10(digitSumOfProducts(cci.slice(0, 6), [1, 2]));
  const second = mod10(digitSumOfProducts(cci.slice(6, 18), [1, 2]));
  return (cci.startsWith('011') || first === Number(cci[18])) && second === Number(cci[19]);
}

/** Peru: an interbank CCI (check digits and bank verified) or a bank's own 10 to 14 digit account number. */
function validatePeru(input: BankAccountInput): BankAccountResult {
  const account = compactDigits(input.account);
  if (/^\d{20}$/.test(account)) {
    if (!isValidCci(account)) return fail('account', 'CCI check digits do not match', 'check_digit');
    if (!findBank('PE', account.slice(0, 3))) return fail('account', `starts with ${account.slice(0, 3)}, which is not a CCE participant`, 'unknown_bank');
    return checkBankCode('PE', input.bankCode, account.slice(0, 3));
  }
  if (!/^\d{10,14}$/.test(account)) return fail('account', 'must be a 20-digit CCI or a 10 to 14 digit account number');
  return checkBankCode('PE', input.bankCode);
}

// ---------------------------------------------------------------------------------------------
// Brazil: agency (branch) and account, with the check digits of the banks that publish them

interface BrazilAccount {
  /** Account digits without the check digit. */
  number: string;
  /** The check digit, upper-cased ("X" at Banco do Brasil, "P" at Bradesco). */
  digit: string;
}

interface BrazilBranch {
  number: string;
  digit?: string;
}

/**
 * Brazilian payout files carry the account with its check digit as the last character,
 * written "12345-6" or "123456"; the agency is 4 digits, optionally "-d".
 */
function parseBrazilAccount(text: string): BrazilAccount | null {
  const m = /^(\d{1,12})-?([\dXP])$/i.exec(text.replace(/[\s.]/g, ''));
  return m ? { number: m[1]!, digit: m[2]!.toUpperCase() } : null;
}

function parseBrazilBranch(text: string): BrazilBranch | null {
  const m = /^(\d{1,5})(?:-([\dXP]))?$/i.exec(text.replace(/[\s.]/g, ''));
  if (!m) return null;
  return m[2] === undefined ? { number: m[1]! } : { number: m[1]!, digit: m[2]!.toUpperCase() };
}

/** mod 11 with weights from 2 up, right to left; the remainder is turned into a digit by each bank's own rule. */
function mod11Remainder(digits: string, weightsLeftToRight: readonly number[]): number {
  return weightedSum(digits, weightsLeftToRight) % 11;
}

/** Banco do Brasil: 11 − (Σ mod 11) with 10 → X and 11 → 0, for agency (weights 5…2) and account (9…2). */
function bbDigit(digits: string, weights: readonly number[]): string {
  const d = 11 - mod11Remainder(digits, weights);
  return d === 10 ? 'X' : d === 11 ? '0' : String(d);
}

/** Bradesco: like Banco do Brasil with 10 → P (also written 0) and 11 → 0. */
function bradescoDigits(digits: string, weights: readonly number[]): string[] {
  const d = 11 - mod11Remainder(digits, weights);
  return d === 10 ? ['P', '0'] : d === 11 ? ['0'] : [String(d)];
}

type BrazilRule = (account: BrazilAccount, branch: BrazilBranch | null) => BankAccountResult;

const wrongAccountDigit = (bank: string) => fail('account', `check digit does not match the ${bank} account`, 'check_digit');
const wrongBranchDigit = (bank: string) => fail('branch', `check digit does not match the ${bank} agency`, 'check_digit');

/** Rules by COMPE code. Banks missing here publish no algorithm: their accounts are checked for shape only. */
const BRAZIL_RULES: Record<number, BrazilRule> = {
  // Banco do Brasil: agency 4 + DV, account up to 8 + DV; both mod 11.
  1: (account, branch) => {
    if (account.number.length > 8) return fail('account', 'must be up to 8 digits and a check digit at Banco do Brasil');
    if (bbDigit(account.number.padStart(8, '0'), [9, 8, 7, 6, 5, 4, 3, 2]) !== account.digit) return wrongAccountDigit('Banco do Brasil');
    if (branch && branch.number.length > 4) return fail('branch', 'must be 4 digits and a check digit at Banco do Brasil');
    if (branch?.digit !== undefined && bbDigit(branch.number.padStart(4, '0'), [5, 4, 3, 2]) !== branch.digit) return wrongBranchDigit('Banco do Brasil');
    return OK;
  },
  // Santander: agency 4 (no DV), account 8 + DV; the DV covers agency and account: units of
  // each product by 9,7,3,1 | 0,9,7,1,3,1,9,7,3, then mod 10.
  33: (account, branch) => {
    if (account.number.length > 8) return fail('account', 'must be up to 8 digits and a check digit at Santander');
    if (!branch) return OK;
    if (branch.number.length > 4) return fail('branch', 'must be 4 digits at Santander');
    const digits = branch.number.padStart(4, '0') + account.number.padStart(9, '0');
    const weights = [9, 7, 3, 1, 0, 9, 7, 1, 3, 1, 9, 7, 3];
    const sum = digitsOf(digits).reduce((s, d, i) => s + ((d * weights[i]!) % 10), 0);
    return String(mod10(sum)) === account.digit ? OK : wrongAccountDigit('Santander');
  },
  // Caixa: agency 4 (no DV), account = operation 3 + number 8 + DV; the DV covers agency,
  // operation and number: (Σ × 10) mod 11 with weights 8…2,9…2, 10 → 0. The newer 4-digit
  // operation accounts have no published rule and get the shape check only.
  104: (account, branch) => {
    if (account.number.length !== 11 || !branch) return OK;
    if (branch.number.length > 4) return fail('branch', 'must be 4 digits at Caixa');
    const sum = weightedSum(branch.number.padStart(4, '0') + account.number, [8, 7, 6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
    return String(((sum * 10) % 11) % 10) === account.digit ? OK : wrongAccountDigit('Caixa');
  },
  // Bradesco: agency 4 + DV (weights 5…2), account 7 + DV (weights 2,7,6,5,4,3,2), both mod 11.
  237: (account, branch) => {
    if (account.number.length > 7) return fail('account', 'must be up to 7 digits and a check digit at Bradesco');
    if (!bradescoDigits(account.number.padStart(7, '0'), [2, 7, 6, 5, 4, 3, 2]).includes(account.digit)) return wrongAccountDigit('Bradesco');
    if (branch && branch.number.length > 4) return fail('branch', 'must be 4 digits and a check digit at Bradesco');
    if (branch?.digit !== undefined && !bradescoDigits(branch.number.padStart(4, '0'), [5, 4, 3, 2]).includes(branch.digit)) return wrongBranchDigit('Bradesco');
    return OK;
  },
  // Itaú: agency 4, account 5 + DAC; the DAC covers agency and account: mod 10, weights 2,1
  // from the left, digits of each product summed.
  341: (account, branch) => {
    if (account.number.length > 5) return fail('account', 'must be 5 digits and a check digit at Itaú');
    if (!branch) return OK;
    if (branch.number.length > 4) return fail('branch', 'must be 4 digits at Itaú');
    const dac = mod10(digitSumOfProducts(branch.number.padStart(4, '0') + account.number.padStart(5, '0'), [2, 1]));
    return String(dac) === account.digit ? OK : wrongAccountDigit('Itaú');
  },
};

function validateBrazil(input: BankAccountInput): BankAccountResult {
  const account = parseBrazilAccount(input.account);
  if (!account || account.number.length < 2) return fail('account', 'must be 3 to 13 digits, the last one its check digit (12345-6)');
  let branch: BrazilBranch | null = null;
  if (input.branch !== undefined && input.branch.trim() !== '') {
    branch = parseBrazilBranch(input.branch);
    if (!branch) return fail('branch', 'must be up to 5 digits, optionally followed by -check digit');
  }
  const bankCheck = checkBankCode('BR', input.bankCode);
  if (!bankCheck.ok) return bankCheck;
  const bank = input.bankCode === undefined || input.bankCode.trim() === '' ? undefined : findBank('BR', input.bankCode);
  const rule = bank ? BRAZIL_RULES[bank.code] : undefined;
  return rule ? rule(account, branch) : OK;
}

// ---------------------------------------------------------------------------------------------
// Countries with lengths and types only (no public check-digit rule)

interface ShapeRule {
  /** Account digits, min and max, after removing spaces, dots and dashes. */
  readonly account: readonly [number, number];
  readonly types: readonly AccountType[];
}

// Lengths are those of the countries' account numbers (CO: 9 Bogotá to 16; Nequi and Daviplata
// use the 10-digit phone; CL: 7 to 12, CuentaRUT is the RUT without its digit; UY: BROU's 14
// digit format and the shorter numbers of other banks; EC: 10 at Pichincha, 5 to 20 elsewhere).
const SHAPES: Record<string, ShapeRule> = {
  CO: { account: [5, 17], types: ['SAVING', 'CHECKING', 'DEFAULT'] },
  CL: { account: [4, 20], types: ['CHECKING', 'SAVING', 'VISTA', 'DEFAULT'] },
  UY: { account: [4, 16], types: ['SAVING', 'CHECKING', 'DEFAULT'] },
  EC: { account: [5, 20], types: ['SAVING', 'CHECKING', 'DEFAULT'] },
};
const GENERIC: ShapeRule = { account: [4, 20], types: ACCOUNT_TYPES };

function validateByShape(country: string, input: BankAccountInput): BankAccountResult {
  const shape = SHAPES[country] ?? GENERIC;
  const account = compactDigits(input.account);
  const [min, max] = shape.account;
  if (!new RegExp(`^\\d{${min},${max}}$`).test(account)) return fail('account', `must be ${min} to ${max} digits`);
  if (input.branch !== undefined && input.branch.trim() !== '' && !/^\d{1,10}$/.test(compactDigits(input.branch))) {
    return fail('branch', 'must be digits');
  }
  return checkBankCode(country, input.bankCode);
}

const BY_COUNTRY: Record<string, (input: BankAccountInput) => BankAccountResult> = {
  AR: validateArgentina,
  MX: validateMexico,
  BR: validateBrazil,
  PE: validatePeru,
};

/** Account types a country's accounts can have (the spec's list; fewer where banks offer fewer). */
export function accountTypesFor(country: string): readonly AccountType[] {
  return SHAPES[country.toUpperCase()]?.types ?? ACCOUNT_TYPES;
}

/**
 * country is ISO 3166-1 alpha-2. Checks, in order: account present, account type, then the
 * country's shape, check digits and bank. Countries without specific rules get a digit check.
 */
export function validateBankAccount(country: string, input: BankAccountInput): BankAccountResult {
  const cc = country.toUpperCase();
  if (typeof input.account !== 'string' || input.account.trim() === '') return fail('account', 'is required');
  if (input.accountType !== undefined) {
    const type = normalizeAccountType(input.accountType);
    if (type === null) return fail('account_type', `must be one of ${ACCOUNT_TYPES.join(', ')} or C, S, V, O, P`);
    const allowed = accountTypesFor(cc);
    if (!allowed.includes(type)) return fail('account_type', `must be one of ${allowed.join(', ')} in ${cc}`);
  }
  const validate = BY_COUNTRY[cc];
  return validate ? validate(input) : validateByShape(cc, input);
}
