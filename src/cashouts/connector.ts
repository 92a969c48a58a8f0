// The payout connector now lives beside the pay-in one (src/connectors/); this keeps the
// cashout code's imports short.
export type { PayoutConnector, PayoutOrder, PayoutOutcome } from '../connectors/payout.ts';
export { payoutConnector } from '../connectors/registry.ts';
import type { PayoutOrder } from '../connectors/payout.ts';
import type { CashoutRow } from './row.ts';

/** What a bank needs of a cashout (the staging bank here, an order network in src/cashouts/payouts.ts). */
export function payoutOrderOf(c: CashoutRow): PayoutOrder {
  return {
    cashoutId: c.id, country: c.country, amount: c.local_amount, currency: c.local_currency, bankCode: c.bank_code,
    bankAccount: c.bank_account, bankBranch: c.bank_branch, accountType: c.account_type, documentId: c.document_id,
    beneficiaryName: [c.beneficiary_name, c.beneficiary_lastname].filter(Boolean).join(' '),
    pixKey: c.pix_key ?? null, ownerCheck: c.owner_check === true,
  };
}

