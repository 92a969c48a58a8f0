// Banks behind one interface (STYLE.md "Providers behind one interface"): the cashout worker
// hands a PENDING cashout to the bank network and later asks for its outcome, never knowing which
// network it talks to. The staging bank (src/connectors/staging/bank.ts, a stand-in kind that
// declares `paysOut`) is the one implementation that ships; a production network is another
// implementation of this interface, chosen by src/connectors/registry.ts (payoutConnector).
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
  /** BR (caja's extension): the beneficiary's Pix key; the payout goes to it instead of the account. */
  pixKey?: string | null;
  /** Only to a key or account held by `documentId` (Efí's "mesma titularidade"); refused with 805 otherwise. */
  ownerCheck?: boolean;
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

/**
 * A network caja sends orders to over the wire (STP's SPEI): unlike the staging bank, a request
 * may be lost with the order registered, so the order is named by a random reference stored with
 * the cashout's row before the first request, and looked up by it before any resend. The cashout's steps are
 * run by src/cashouts/payouts.ts through the send-once primitive (src/jobs/send-once.ts: new → sending → sent), the outcome applied through the
 * cashout's transitions.
 */
export interface OrderPayoutConnector {
  readonly name: string;
  /** The countries whose cashouts it pays (STP: MX). */
  readonly countries: readonly string[];
  /** The provider's limit per payout, in the country's currency: a larger cashout is refused at creation. */
  readonly maxAmount?: string;
  /** When paid, the cashout's bank_reference_id becomes the provider's id of the order (Pix: the end-to-end id). */
  readonly providerIdIsBankReference?: boolean;
  /**
   * A fresh reference for a new order (STP: the claveRastreo): random (src/domain/references.ts),
   * never derived from the cashout id or the master key, which repeat after a database restore
   * and across installations. Stored with the row before the order is first sent; every resend
   * and look-up reads it back from the row.
   */
  newReference(): string;
  /** How long a sent order may go unheard of before it is looked up, in seconds (STP: CAJA_STP_ORDER_CHECK_SECONDS, Pix: its payouts' check_seconds). */
  readonly checkSeconds: number;
  /**
   * Sends the order. Throws ConnectorError when the answer is unknown (nothing is known to exist).
   * `facts`: what the cashouts' owner answers about this network's other orders (a connector reads
   * no feature's table).
   */
  send(order: PayoutOrder, reference: string, facts?: PayoutFacts): Promise<OrderSendResult>;
  /**
   * The order at the provider by its reference, handed over at `handedAt`: every operation day
   * the provider may have dated it (`knownDay` first, when an earlier look-up found it); null when
   * the provider has none. A found order that is not the cashout's (amount, account, beneficiary)
   * comes back with `mismatch` set: it is never adopted.
   */
  lookup(order: PayoutOrder, reference: string, handedAt: Date, knownDay: string | null): Promise<OrderState | null>;
}

/** What the cashouts' owner answers a network about its orders. */
export interface PayoutFacts {
  /**
   * The amount, in the country's currency, of this network's other orders handed over since
   * `since` and not rejected: every row written 'sending' counts before its request leaves.
   */
  handedOverSince(since: Date): Promise<string>;
}

export type OrderSendResult =
  /** Registered: the provider's id of the order. */
  | { kind: 'accepted'; providerId: string }
  /** The provider already holds an order with this reference: look it up. */
  | { kind: 'exists' }
  /** Refused for the beneficiary's reasons: the cashout is rejected with the code. */
  | { kind: 'rejected'; code: RejectionCode; error: string }
  /** The provider could not take it now (its trouble, or the operator's key): sent again later. */
  | { kind: 'retry'; error: string };

/** What every state found by a look-up carries besides its kind. */
interface Found {
  state: string;
  providerId?: string;
  /** The provider's operation day of the order (STP: fechaOperacion, yyyymmdd). */
  day?: string;
  /** Set when the order found is not the cashout's: what differs (amount, account, beneficiary). */
  mismatch?: string;
}

export type OrderState =
  | ({ kind: 'processing' } & Found)
  | ({ kind: 'paid' } & Found)
  /** Refused or cancelled before it was paid. */
  | ({ kind: 'rejected'; code: RejectionCode; cause: string } & Found)
  /** Sent back by the beneficiary bank: a rejection, late when the cashout was already COMPLETED. */
  | ({ kind: 'returned'; code: RejectionCode; cause: string } & Found);
