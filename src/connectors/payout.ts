// Banks behind one interface (STYLE.md "Providers behind one interface"): the cashout worker
// hands a PENDING cashout to the bank network and later asks for its outcome, never knowing which
// network it talks to. The staging bank (src/cashouts/staging-bank.ts) is the one implementation
// that ships; a production network is another implementation of this interface, chosen by
// src/connectors/registry.ts (payoutConnector).
import type { RejectionCode } from '../domain/cashout-states.ts';

/** What the bank needs to pay a beneficiary. */
export interface PayoutOrder {
  cashoutId: number;
  country: string;
  /** In the country's currency. */
  amount: string;
  currency: string;
  bankCode: string | null;
  bankAccount: string;
  bankBranch: string | null;
  accountType: string | null;
  documentId: string;
  beneficiaryName: string;
}

export type PayoutOutcome =
  | { status: 'completed'; /** The beneficiary bank will send it back later with this code. */ returnsWith?: RejectionCode }
  | { status: 'rejected'; code: RejectionCode }
  | { status: 'processing' };

export interface PayoutConnector {
  readonly name: string;
  /** Hands the payout to the bank; answers the bank's reference for it. */
  submit(order: PayoutOrder): Promise<{ bankReference: string }>;
  /** The bank's answer for a delivered payout. */
  outcome(order: PayoutOrder, bankReference: string): Promise<PayoutOutcome>;
}
