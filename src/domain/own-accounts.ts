// The operator's own collection accounts: bank accounts the operator really holds, where customers
// who pay by bank transfer or at a branch send their money (the "own accounts" connector,
// src/connectors/own-accounts.ts). Nothing tells caja when such a payment arrives but the bank
// statement, so their deposits stay PENDING until the operator confirms them. Pure: validation
// of the operator's list and the payment_info a deposit shows.
import { findMethod, type PaymentMethod } from './catalog.ts';
import { isValidClabe } from './clabe.ts';
import { getCountry } from './countries.ts';
import { validateDocument } from './documents.ts';
import { depositReference, type PaymentInfo, type PaymentInfoInput, paymentInfoBase, speiReference } from './payment-info.ts';

/** One account, as the operator configures it and as customers see it. */
export interface OwnAccount {
  country: string;
  /** The catalog method it collects (a bank transfer or branch deposit method of the country). */
  method: string;
  beneficiary_name: string;
  /** Brazil: the branch (agência). */
  agency?: string;
  /** The account number as the customer types it; Mexico: the 18-digit CLABE. */
  account: string;
  /** The account holder's tax id (Brazil: the CNPJ customers see as `CNPJ`). */
  document?: string;
}

/** Kinds of method whose money lands in an account the operator holds. */
const OWN_ACCOUNT_KINDS = new Set(['bank_transfer', 'bank_deposit']);

export function collectsIntoOwnAccount(method: PaymentMethod): boolean {
  return OWN_ACCOUNT_KINDS.has(method.kind);
}

export type OwnAccountsResult = { ok: true; accounts: OwnAccount[] } | { ok: false; details: string[] };

const MAX_ACCOUNTS = 200;
const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** Checks the operator's list (`{accounts: [...]}`); every problem is reported at once. */
export function validateOwnAccounts(body: unknown): OwnAccountsResult {
  const b = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const list = b.accounts;
  if (!Array.isArray(list) || list.length === 0) return { ok: false, details: ['accounts: must be a non-empty array'] };
  if (list.length > MAX_ACCOUNTS) return { ok: false, details: [`accounts: at most ${MAX_ACCOUNTS}`] };
  const details: string[] = [];
  const accounts: OwnAccount[] = [];
  const seen = new Set<string>();
  list.forEach((raw, i) => {
    const at = `accounts[${i}]`;
    const a = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
    if (!a) {
      details.push(`${at}: must be an object`);
      return;
    }
    const problems: string[] = [];
    const country = text(a.country).toUpperCase();
    const code = text(a.method).toUpperCase();
    if (!getCountry(country)) problems.push(`${at}.country: not an accepted country`);
    const method = country && code ? findMethod(country, code) : undefined;
    if (!code) problems.push(`${at}.method: is required`);
    else if (getCountry(country) && !method) problems.push(`${at}.method: '${code}' is not a method of ${country}`);
    else if (method && !collectsIntoOwnAccount(method)) {
      problems.push(`${at}.method: '${code}' (${method.name}) is not paid into a bank account (bank transfer or branch deposit methods only)`);
    }
    const key = `${country}|${code}`;
    if (method && seen.has(key)) problems.push(`${at}: a second account for ${country} ${code}`);
    seen.add(key);

    const beneficiary = text(a.beneficiary_name);
    if (!beneficiary) problems.push(`${at}.beneficiary_name: is required`);
    else if (beneficiary.length > 100) problems.push(`${at}.beneficiary_name: at most 100 characters`);
    const account = text(a.account);
    const agency = text(a.agency);
    const document = text(a.document);
    if (!account) problems.push(`${at}.account: is required`);
    else if (country === 'MX' && !isValidClabe(account)) problems.push(`${at}.account: must be an 18-digit CLABE with a valid check digit`);
    else if (!/^[0-9A-Za-z][0-9A-Za-z -]{0,44}$/.test(account)) problems.push(`${at}.account: 1-45 letters, digits, spaces or dashes`);
    if (agency && !/^\d{1,5}(-[0-9Xx])?$/.test(agency)) problems.push(`${at}.agency: 1-5 digits, optionally a dash and a check digit`);
    if (country === 'BR') {
      if (!agency) problems.push(`${at}.agency: is required in BR`);
      if (!document) problems.push(`${at}.document: is required in BR (the CNPJ customers see)`);
    }
    let normalizedDocument: string | undefined;
    if (document) {
      const checked = validateDocument(country, document, country === 'BR' ? 'CNPJ' : undefined);
      if (checked.ok) normalizedDocument = checked.normalized;
      else problems.push(`${at}.document: ${checked.reason}`);
    }
    details.push(...problems);
    if (problems.length === 0 && method) {
      accounts.push({
        country, method: method.code, beneficiary_name: beneficiary, account,
        ...(agency ? { agency } : {}), ...(normalizedDocument ? { document: normalizedDocument } : {}),
      });
    }
  });
  return details.length > 0 ? { ok: false, details } : { ok: true, accounts };
}

/**
 * What the customer is shown: the operator's account and the deposit's reference, which the
 * customer quotes and the bank statement carries (the only way the payment is told apart).
 */
export function ownAccountPaymentInfo(charge: PaymentInfoInput, account: OwnAccount): PaymentInfo {
  const reference = account.country === 'MX' ? speiReference(charge.depositId) : depositReference(charge.depositId);
  const metadata: Record<string, string> = { beneficiary_name: account.beneficiary_name };
  if (account.agency) metadata.agency = account.agency;
  metadata.account = account.account;
  if (account.document && account.country === 'BR') metadata.CNPJ = account.document;
  metadata.reference = reference;
  if (account.country === 'BR') {
    if (charge.payerDocument) metadata.payer_document = charge.payerDocument;
    if (charge.payerDocumentType) metadata.payer_document_type = charge.payerDocumentType;
  }
  return { ...paymentInfoBase(charge), metadata };
}
