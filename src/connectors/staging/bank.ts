// The staging bank: accepts every payout and answers by magic values of the beneficiary account
// (docs/cashouts.md), so that merchants can rehearse every outcome:
//
//   account digits contain 9990N (N = 0…8)   rejected with code 80N (REJECTIONS)
//   account digits contain 99977             completed, then returned by the beneficiary bank (809)
//   anything else                            completed
//
// A stand-in kind (src/connectors/kind.ts StandInKind): it pays out every country's cashouts that
// no configured network pays.
import { createHash } from 'node:crypto';
import type { RejectionCode } from '../../domain/cashout-states.ts';
import type { StandInKind } from '../kind.ts';
import type { PayoutConnector, PayoutOrder, PayoutOutcome } from '../payout.ts';

export function stagingOutcome(bankAccount: string): PayoutOutcome {
  const digits = bankAccount.replace(/\D/g, '');
  if (digits.includes('99977')) return { status: 'completed', returnsWith: '809' };
  const m = /9990([0-8])/.exec(digits);
  if (m) return { status: 'rejected', code: `80${m[1]}` as RejectionCode };
  return { status: 'completed' };
}

export const stagingBank: PayoutConnector = {
  name: 'staging-bank',
  async submit(order: PayoutOrder) {
    // A stable reference, like a bank's: the same cashout always gets the same one.
    const hash = createHash('sha256').update(`staging-bank:${order.cashoutId}`).digest('hex').slice(0, 12).toUpperCase();
    return { bankReference: `SB${hash}` };
  },
  async outcome(order: PayoutOrder) {
    return stagingOutcome(order.bankAccount);
  },
};

export const stagingBankKind: StandInKind = {
  name: stagingBank.name,
  label: 'staging bank',
  paysOut: stagingBank,
};
