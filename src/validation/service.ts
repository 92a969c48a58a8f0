// v5 account and Pix key validation: the checks the spec lists, in its order, over the one set
// of bank-account rules (domain/bank-accounts.ts) and the registry connector (src/connectors/account-registry.ts).
// Failures are named here; the v5 face renders them.
import type { AppContext } from '../config/context.ts';
import { validateBankAccount, type BankAccountCheck, type BankAccountField } from '../domain/bank-accounts.ts';
import { methodsForCountry } from '../domain/catalog.ts';
import { getCountry } from '../domain/countries.ts';
import { validateDocument } from '../domain/documents.ts';
import { cmp, dec, toPlainString, type Decimal } from '../domain/money.ts';
import { classifyPixKey, type PixKeyType } from '../domain/pix.ts';
import { convert } from '../lookups/exchange-rates.ts';
import type { AccountRegistry } from '../connectors/account-registry.ts';

/** Why an account is refused: the rule checks, then the bank's answers, in the order they run. */
export type AccountCheck = BankAccountCheck | 'account_not_found' | 'holder_mismatch' | 'cannot_receive_funds';

export const ACCOUNT_CHECK_DESCRIPTIONS: Record<AccountCheck, string> = {
  format: 'account, branch or account type malformed for the country',
  check_digit: 'a check digit does not match',
  unknown_bank: 'the bank is not a participant of the country registry (GET /v3/banks)',
  account_not_found: 'the bank has no such account',
  holder_mismatch: 'the account does not belong to the beneficiary (document or name)',
  cannot_receive_funds: 'the account is closed, blocked or cannot take credits',
};

export interface AccountValidationInput {
  country: string;
  document: string;
  documentType?: string;
  firstName?: string;
  lastName?: string;
  /** Already parsed (at most 2 decimals); in `currency`. */
  amount?: Decimal;
  currency: string;
  bankAccount: { account: string; bankCode?: string; branch?: string; accountType?: string };
}

export type AccountValidationResult =
  | { ok: true }
  | { ok: false; kind: 'document'; reason: string }
  | { ok: false; kind: 'bank_account'; check: AccountCheck; field: BankAccountField; reason: string }
  | { ok: false; kind: 'amount'; reason: string }
  | { ok: false; kind: 'currency'; reason: string };

/**
 * What a bank transfer in the country can carry: the widest bounds of the country's
 * bank-transfer methods, in the local currency. Null when the catalog has none.
 */
export function bankTransferLimits(country: string): { min: Decimal; max: Decimal; currency: string } | null {
  const methods = methodsForCountry(country).filter((m) => m.type === 'BANK_TRANSFER');
  if (!methods.length) return null;
  let min = dec(methods[0]!.minAmount);
  let max = dec(methods[0]!.maxAmount);
  for (const m of methods.slice(1)) {
    if (cmp(dec(m.minAmount), min) < 0) min = dec(m.minAmount);
    if (cmp(dec(m.maxAmount), max) > 0) max = dec(m.maxAmount);
  }
  return { min, max, currency: methods[0]!.currency };
}

/** Runs the checks in the spec's order; the first failure is the answer. */
export async function validateAccount(ctx: AppContext, registry: AccountRegistry, input: AccountValidationInput): Promise<AccountValidationResult> {
  const local = getCountry(input.country)!.currency;
  if (input.currency !== 'USD' && input.currency !== local) {
    return { ok: false, kind: 'currency', reason: `must be USD or ${local}` };
  }
  const document = validateDocument(input.country, input.document, input.documentType);
  if (!document.ok) return { ok: false, kind: 'document', reason: document.reason };

  // 1. Account, branch and type valid (shape, check digits, bank in the registry).
  const rules = validateBankAccount(input.country, input.bankAccount);
  if (!rules.ok) return { ok: false, kind: 'bank_account', check: rules.check, field: rules.field, reason: rules.reason };

  // 2. and 3. The account exists and belongs to the beneficiary: the bank's answer.
  const facts = await registry.lookupAccount({
    country: input.country,
    account: input.bankAccount.account,
    branch: input.bankAccount.branch,
    bankCode: input.bankAccount.bankCode,
    document: document.normalized,
    firstName: input.firstName,
    lastName: input.lastName,
  });
  if (!facts) return { ok: false, kind: 'bank_account', check: 'account_not_found', field: 'account', reason: 'the bank has no such account' };
  if (!facts.holderMatches) {
    return { ok: false, kind: 'bank_account', check: 'holder_mismatch', field: 'account', reason: 'the account does not belong to the beneficiary' };
  }

  // 4. Amount within the limits, only when sent.
  if (input.amount !== undefined) {
    const limits = bankTransferLimits(input.country);
    if (limits) {
      const amount = await convert(ctx.db, ctx.config, input.amount, input.currency, limits.currency);
      if (!amount) return { ok: false, kind: 'currency', reason: `no exchange rate from ${input.currency} to ${limits.currency}` };
      if (cmp(amount, limits.min) < 0 || cmp(amount, limits.max) > 0) {
        const bounds = `${toPlainString(limits.min)} to ${toPlainString(limits.max)} ${limits.currency}`;
        return { ok: false, kind: 'amount', reason: `must be within ${bounds} for a bank transfer in ${input.country}` };
      }
    }
  }

  // 5. The account can receive funds.
  if (!facts.canReceive) {
    return { ok: false, kind: 'bank_account', check: 'cannot_receive_funds', field: 'account', reason: 'the account cannot receive funds' };
  }
  return { ok: true };
}

/** The documented maximum of keys per `POST /v5/account/pix_key/validate`. */
export const MAX_PIX_KEYS_PER_REQUEST = 100;

export interface PixKeyAnswer {
  pix: string;
  valid: boolean;
}

/**
 * Each item is judged on its own: a malformed one is `valid: false` and never fails the batch.
 * Valid means a well-formed key (check digits, e-mail, mobile, UUID) that the DICT has; the
 * well-formed keys go to the registry in one call.
 */
export async function validatePixKeys(registry: AccountRegistry, items: readonly unknown[]): Promise<PixKeyAnswer[]> {
  const answers: PixKeyAnswer[] = [];
  const wellFormed: { index: number; type: PixKeyType; key: string }[] = [];
  for (const item of items) {
    const raw = item !== null && typeof item === 'object' && !Array.isArray(item) ? (item as { pix?: unknown }).pix : undefined;
    const pix = typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : '';
    const key = classifyPixKey(pix);
    if (key.ok) wellFormed.push({ index: answers.length, type: key.type, key: key.normalized });
    answers.push({ pix, valid: false });
  }
  if (wellFormed.length) {
    const registered = await registry.pixKeysRegistered(wellFormed.map(({ type, key }) => ({ type, key })));
    wellFormed.forEach(({ index }, n) => {
      answers[index]!.valid = registered[n] === true;
    });
  }
  return answers;
}
