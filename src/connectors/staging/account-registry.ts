// Staging's account and Pix-key registry: a stand-in for the banks' and the DICT's answers. A
// stand-in kind (src/connectors/kind.ts StandInKind) that validates accounts and Pix keys.
import type { AccountRegistry } from '../account-registry.ts';
import type { StandInKind } from '../kind.ts';

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

export const stagingRegistryKind: StandInKind = {
  name: 'staging-registry',
  label: 'staging account and Pix-key registry',
  validatesAccounts: simulatedRegistry,
};
