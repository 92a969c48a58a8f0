// Whether an account exists, belongs to the beneficiary and can receive funds, and whether a
// Pix key is registered, are the banks' (the connector's) answer, not a rule we can compute.
// This is that connector interface; the connector registry chooses one (accountRegistryFor in
// ./registry.ts): the one a registered kind declares (`validatesAccounts`: staging's simulated
// registry, ./staging/account-registry.ts, a stand-in registered when providers are simulated),
// else none connected yet. Cashouts can ask the same registry before paying out.
import type { PixKeyType } from '../domain/pix.ts';

export interface AccountQuery {
  country: string;
  /** The account as the merchant sent it (digits with its check digit). */
  account: string;
  branch?: string;
  bankCode?: string;
  document: string;
  firstName?: string;
  lastName?: string;
}

/** What the bank says about an account; null from lookupAccount: no such account. */
export interface AccountFacts {
  /** The account is held by the beneficiary named by the document (and name, when sent). */
  holderMatches: boolean;
  /** Open and able to take a credit (not closed, blocked or limited). */
  canReceive: boolean;
}

export interface PixKeyQuery {
  type: PixKeyType;
  /** The key in DICT form (classifyPixKey's normalized value). */
  key: string;
}

export interface AccountRegistry {
  lookupAccount(query: AccountQuery): Promise<AccountFacts | null>;
  /** One answer per key, in order: registered in the DICT or not. */
  pixKeysRegistered(keys: readonly PixKeyQuery[]): Promise<boolean[]>;
}

export class RegistryUnavailableError extends Error {}

/**
 * Production has no account-registry connector yet: answering "exists" without asking a bank
 * would be a false promise, so every lookup fails as unavailable (the face answers 503).
 */
export const unconnectedRegistry: AccountRegistry = {
  async lookupAccount() {
    throw new RegistryUnavailableError('No bank registry connector is configured for production');
  },
  async pixKeysRegistered() {
    throw new RegistryUnavailableError('No DICT connector is configured for production');
  },
};

