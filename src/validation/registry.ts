// Whether an account exists, belongs to the beneficiary and can receive funds, and whether a
// Pix key is registered, are the banks' (the connector's) answer, not a rule we can compute.
// This is that connector interface; staging uses the simulator below, chosen once from the
// simulated capability (config.ts). Cashouts can ask the same registry before paying out.
import type { Capabilities } from '../config/config.ts';
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
 * Staging's simulated registry. The magic values (docs/validation.md) are read from the
 * account's digits without its last one, which is the check digit in most countries, so a
 * merchant can build a well-formed account that still hits them:
 *   …0000 → no such account, …1111 → held by someone else, …2222 → cannot receive funds.
 * Pix keys: an e-mail whose local part starts with "unknown", a phone or random key ending in
 * 0000, a CPF or CNPJ whose digits before the two check digits end in 0000 → not registered.
 * Everything else well-formed exists, belongs to the beneficiary and can receive.
 */
export const simulatedRegistry: AccountRegistry = {
  async lookupAccount(query) {
    const digits = query.account.replace(/\D/g, '').slice(0, -1);
    if (digits.endsWith('0000')) return null;
    return { holderMatches: !digits.endsWith('1111'), canReceive: !digits.endsWith('2222') };
  },
  async pixKeysRegistered(keys) {
    return keys.map(({ type, key }) => {
      switch (type) {
        case 'EMAIL':
          return !key.startsWith('unknown');
        case 'CPF':
        case 'CNPJ':
          return !key.slice(0, -2).endsWith('0000');
        default:
          return !key.endsWith('0000');
      }
    });
  },
};

/**
 * Production has no account-registry connector yet: answering "exists" without asking a bank
 * would be a false promise, so every lookup fails as unavailable (the face answers 503).
 */
const unconnectedRegistry: AccountRegistry = {
  async lookupAccount() {
    throw new RegistryUnavailableError('No bank registry connector is configured for production');
  },
  async pixKeysRegistered() {
    throw new RegistryUnavailableError('No DICT connector is configured for production');
  },
};

/** Simulated providers (staging): the simulated registry; otherwise none is connected yet. */
export function accountRegistryFor(c: Pick<Capabilities, 'simulated'>): AccountRegistry {
  return c.simulated ? simulatedRegistry : unconnectedRegistry;
}
