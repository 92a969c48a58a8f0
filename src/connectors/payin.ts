// Pay-in providers behind one interface (STYLE.md "Providers behind one interface"): the deposit
// and refund services hand a charge, a refund or a provider's callback to a PayinConnector and
// never know which provider it is. A connector is mostly mapping between these types and its
// provider's wire format (Hyperswitch's "transformers"); the flow around it (create the deposit,
// complete it through transitionDeposit, refund through transitionRefund) is written once.
//
// Implementations:
//   staging simulator   src/connectors/staging/simulator.ts  today's simulated collection
//                       details, completed by the sandbox (and staging's magic values): a
//                       stand-in kind (kind.ts StandInKind), as the staging card below
//   API Pix             src/connectors/pix/                  Brazil's Pix through a PSP that speaks
//                       the Central Bank's API Pix v2 (mTLS, OAuth2, cob, webhook, devolução)
//   staging card        src/connectors/staging/card.ts       staging's card network: a redirect to
//                       its simulated card page, finished by the return leg
//
// A charge answers a next action (src/domain/next-action.ts): a code to scan, bank details, a
// voucher, or a redirect / challenge to the provider's page. A redirect or challenge comes back
// through the return leg (GET|POST /connectors/<name>/return/<token>, src/web/checkout/return-leg.ts),
// which never trusts the return's query: the connector reads the result back from its provider
// (readReturn) and the deposit completes through its transitions (src/deposits/return-leg.ts).
// Which one serves a (country, method) is decided by src/connectors/registry.ts from the
// operator's configuration, never by the services.
import type { Decimal } from '../domain/money.ts';
import type { PaymentInfo, PaymentInfoInput } from '../domain/payment-info.ts';
import type { NextAction } from '../domain/next-action.ts';
import type { CardDetail } from '../domain/cards.ts';
import type { OrderPayoutConnector } from './payout.ts';

/** What a connector error means to the caller, whatever the provider said. */
export type ConnectorErrorKind =
  /** The provider did not answer (timeout, connection refused or reset, 5xx): safe to retry. */
  | 'unavailable'
  /** The provider answered and refused the request (4xx other than auth): retrying the same fails. */
  | 'refused'
  /** The provider refused our credentials even after renewing them. */
  | 'auth'
  /** The provider does not know the thing asked for (404). */
  | 'not_found'
  /** The provider answered something we cannot read. */
  | 'invalid_response'
  /** The connector is not configured (or its configuration is unusable). */
  | 'not_configured';

export class ConnectorError extends Error {
  constructor(
    readonly kind: ConnectorErrorKind,
    message: string,
    /** The provider's HTTP status and problem type, when it answered. */
    readonly provider?: { status?: number; type?: string; title?: string; detail?: string },
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

/**
 * A deposit to collect: what the connector needs to create the charge the customer pays. The
 * fields payment_info is built from (src/domain/payment-info.ts), the payer as one object, and
 * the description a provider may show.
 */
export interface ChargeOrder extends Omit<PaymentInfoInput, 'payerDocument' | 'payerDocumentType'> {
  payer: { document?: string; documentType?: string; name?: string | null };
  description?: string | null;
}

/** The path of a connector's return leg for a deposit: where the customer comes back to from the provider's page. */
export function returnPath(connector: string, token: string): string {
  return `/connectors/${connector}/return/${token}`;
}

/** The order as payment_info's builders take it (payer document fields flat). */
export function paymentInfoInput(order: ChargeOrder): PaymentInfoInput {
  return {
    depositId: order.depositId, token: order.token, method: order.method, amount: order.amount, createdAt: order.createdAt,
    expiresAt: order.expiresAt, payerDocument: order.payer.document, payerDocumentType: order.payer.documentType, publicBaseUrl: order.publicBaseUrl,
  };
}

/** The created charge: what the customer is shown, and the provider's name for it (stored). */
export interface Charge {
  /** The collection details of a method paid outside caja (a QR code, an account, a voucher); null for a card. */
  paymentInfo: PaymentInfo | null;
  /** The provider's reference of the charge (Pix: the txid); null when the simulator makes none. */
  reference: string | null;
  /**
   * What the customer does next. Absent: the action payment_info shows (nextActionOf: a QR code,
   * bank details, a voucher). A redirect or a challenge is stored with the deposit and finished by
   * the return leg (readReturn).
   */
  nextAction?: NextAction;
}

/**
 * The result of a redirect or challenge, as the provider reports it when asked server-to-server
 * (an acquirer's payment details or session result), never as the customer's return says it.
 */
export type ReturnResult =
  /**
   * Paid: the deposit completes; `card` is the masked card (deposits.card_detail) for a card;
   * `payment` the provider's payment, recorded once under its id (an acquirer's pspReference:
   * what its refunds and its notification name).
   */
  | { status: 'paid'; card?: CardDetail; payment?: ProviderPayment }
  /**
   * Refused, cancelled or failed at the provider: the deposit stays payable (another card, another
   * method) and shows the refusal. `final`: the charge itself is over (an acquirer's session ended
   * after its refusals), so the next visit to the checkout creates a new one.
   */
  | { status: 'failed'; reason: string; reasonCode?: string; final?: boolean }
  /** Not decided yet (a challenge still open, an asynchronous method): its callback or poll completes it. */
  | { status: 'pending' };

/** A payment the provider received, read from the provider itself (never from a callback body). */
export interface ProviderPayment {
  /** Unique per payment at the provider (Pix: the end-to-end id): applied once. */
  id: string;
  /** The charge it pays (Pix: the txid), null when the payer paid the key without one. */
  chargeReference: string | null;
  amount: Decimal;
  currency: string;
  /** The account or key it was paid to (Pix: the receiving key). */
  receiver: string | null;
  paidAt: Date;
  /**
   * The payer's document (CPF/CNPJ, RFC/CURP) when the provider reports it (Efí's gnExtras.pagador,
   * STP's rfcCurpOrdenante); undefined when the provider does not say who paid.
   */
  payerDocument?: string | null;
  /** false: the provider shows the money did not stay (STP: a received order devuelta): never applied, only its returns are. */
  kept?: boolean;
  /** Money the provider sent back from this payment (Pix: its devoluções), as it reports them. */
  returns?: ProviderReturn[];
  raw?: unknown;
}

/** A payment sent back (returnPayment) as the provider shows it: in its answer or a look-up. */
export interface SendBackShown {
  /** pending: under way; done: the money left; failed: the provider did not make it (cancelled, not made). */
  state: 'pending' | 'done' | 'failed';
  /** The provider's id and state of it, in its words. */
  providerId?: string;
  providerState?: string;
  /** What the provider holds under the reference is not this send-back (another amount or account): never adopted. */
  mismatch?: string;
  /** Why it failed, in the provider's words. */
  reason?: string;
}

/** The deposit references a payment into the operator's own account names. */
export interface DepositNames {
  /** Deposit ids modulo a million (a numeric reference or concept: speiReference), each for every id of that remainder. */
  remainders: number[];
  /** Deposits' connector references (the account itself, when a deposit was given it). */
  references: string[];
}

/** A return the provider shows on a payment: one caja asked for (a refund) or one the payer's bank made (MED). */
export interface ProviderReturn {
  /** Unique at the provider (Pix: the rtrId of the pacs.004). */
  id: string;
  amount: Decimal;
  /** The provider's code: Pix natureza (ORIGINAL, MED_FRAUDE, …), STP causa. */
  reason: string;
  description: string | null;
  /** True when the payer's side made it (Pix natureza MED_*): caja never asked. */
  bankInitiated: boolean;
  /** What kind of bank-initiated return it is (deposit_returns.kind). */
  kind: 'med' | 'spei_return' | 'chargeback';
  /** settled: the money left; pending: under way; failed: it did not happen. */
  status: 'settled' | 'pending' | 'failed';
  returnedAt: Date | null;
}

export type ChargeStatus =
  | { status: 'pending' }
  | { status: 'paid'; payments: ProviderPayment[] }
  | { status: 'cancelled'; reason?: string };

/**
 * What a provider's callback asks us to look up. A callback is a hint, never the truth: the
 * service reads each one back from the provider (readPayment) before crediting anything.
 */
export type Hint = { kind: 'payment'; id: string; returns?: string[] } | { kind: 'charge'; reference: string };
// `returns`: the ids of bank-initiated returns the callback says the payment now has (Pix: the
// rtrIds of MED devoluções). A payment already applied is read again only for a return caja has
// not recorded; the read, not the callback, is what counts.

export interface RefundOrder {
  refundId: number;
  depositId: number;
  /** The provider's reference of the deposit's charge and of the payment being refunded. */
  chargeReference: string | null;
  paymentId: string | null;
  amount: Decimal;
  currency: string;
  /** The refund's reference at the provider, stored with the refund before it was first sent. */
  reference: string;
  /** Where the money goes back, stored with the refund (STP: the abono's ordering account). */
  destination?: unknown;
  /** When the refund was created (an order may carry that operation day or a later one). */
  createdAt?: Date;
}

export interface RefundOutcome {
  /**
   * MISMATCH: the provider holds something under the refund's reference that is not this refund
   * (another amount, account or beneficiary): never adopted; the refund is stopped for the operator.
   */
  status: 'PENDING' | 'COMPLETED' | 'REJECTED' | 'MISMATCH';
  /** The provider's id and state of the refund's order, when it gave them. */
  providerId?: string;
  providerState?: string;
  /** The provider's reference of the refund (Pix: the devolução id). */
  reference?: string;
  reason?: string;
  reasonCode?: string;
}

export interface ConnectorHealth {
  ok: boolean;
  /** Connector-specific facts (token obtained, webhook registered, last poll, last error). */
  [fact: string]: unknown;
}

export interface PayinConnector {
  /** Stored with each deposit it creates ('staging', 'pix'): later steps find it by name. */
  readonly name: string;
  /**
   * True for staging's simulator: its deposits are completed by the sandbox and magic values,
   * and its refunds wait for the sandbox. A real connector's are completed by its provider.
   */
  readonly simulated: boolean;
  /** Creates the charge the customer pays. Throws ConnectorError; nothing is stored on failure. */
  createCharge(order: ChargeOrder): Promise<Charge>;
  /** The charge's state at the provider, with the payments it received. */
  chargeStatus(reference: string): Promise<ChargeStatus>;
  /** One payment, read from the provider (the truth a hint is checked against); null if unknown. */
  readPayment(id: string): Promise<ProviderPayment | null>;
  /** Turns a callback body into what to look up; throws nothing (an unreadable body is no hint). */
  parseHint(body: unknown): Hint[];
  /** Asks the provider to refund; PENDING until refundStatus says otherwise. */
  refund(order: RefundOrder): Promise<RefundOutcome>;
  /** The provider's answer for a refund sent earlier (or null: never received it). */
  refundStatus(order: RefundOrder): Promise<RefundOutcome | null>;
  health(): Promise<ConnectorHealth>;
  /**
   * The return leg of a redirect or challenge: reads the charge's result back from the provider.
   * `params` is what the customer's browser brought back (Adyen: redirectResult), handed on to the
   * provider as it asks, never believed. Throws ConnectorError when the provider cannot be read.
   */
  readReturn?(reference: string, params: Record<string, string>): Promise<ReturnResult>;
  /** Withdraws a charge whose deposit was cancelled, so it can no longer be paid (best effort). */
  cancelCharge?(reference: string): Promise<void>;
  /** Lets go of connections (a replaced configuration's connector). */
  close?(): void;
  /**
   * Whether a payment read from the provider completes the deposit (its matching rule). `named`:
   * for a payment into the operator's own account (ownAccountNames), the deposits it names.
   */
  checkPayment?(
    payment: ProviderPayment, deposit: { status: string; payerAmount: Decimal; reference: string | null; expiresAt: Date | null }, named?: readonly number[],
  ): { ok: true } | { ok: false; reason: string };
  /**
   * A payment into one of the operator's own accounts rather than a deposit's (STP: a transfer to
   * a CLABE outside the range, or an own account inside it): the deposit references it names, for
   * deposits to look up (src/deposits/lookups.ts depositsNamed). One naming no deposit is the
   * operator's own money: not recorded. Null for a payment into a deposit's account.
   */
  ownAccountNames?(payment: ProviderPayment): DepositNames | null;
  /**
   * Sends a received payment back in full under `reference` (Pix: PUT /pix/{e2eid}/devolucao/{reference};
   * STP: an order of the full amount to the ordering account, registered under its claveRastreo).
   * Driven by src/deposits/send-backs.ts through the send-once primitive, which looks the
   * reference up (lookupReturn) before any resend. Answers what the provider shows of it, or null
   * when the provider says it holds the reference already (looked up at the next step). Throws
   * ConnectorError (`refused`: the provider refused the request itself).
   */
  returnPayment?(payment: ProviderPayment, reference: string, reason: string): Promise<SendBackShown | null>;
  /**
   * The send-back of `payment` the provider holds under `reference` (Pix: GET /pix/{e2eid}/devolucao/{reference};
   * STP: consOrdEnvRastreo by its claveRastreo, on every operation day it may carry), or null when
   * it holds none. `mismatch` when what it holds is not this send-back (amount, account).
   */
  lookupReturn?(payment: ProviderPayment, reference: string): Promise<SendBackShown | null>;
  /** The reference a send-back is stored under before it is sent (default: a 25-character `cajaret…`). */
  newReturnReference?(): string;
  /**
   * The provider sends a payment back when the callback's answer refuses it (STP: devolver): a
   * refused payment first recorded from a callback is not sent back again by returnPayment.
   */
  readonly returnsByAnswer?: boolean;
  /** Registers the address the provider posts its callbacks to (Pix: PUT /webhook/{chave}). */
  registerCallback?(url: string): Promise<void>;
  /** Every payment received in [from, to] (Pix: GET /pix?inicio&fim, page by page): reconciliation; `withReturns`: only those with returns (Pix: devolucaoPresente=true). */
  paymentsBetween?(from: Date, to: Date, opts?: { withReturns?: boolean }): AsyncIterable<ProviderPayment>;
  /** The same provider's payouts, when the operator's configuration pays cashouts too (STP). */
  readonly payout?: OrderPayoutConnector;
  /**
   * The provider account's movements of one day (yyyy-mm-dd), as the provider itself lists them
   * (STP: the day's received and sent orders; Pix: the received Pix and their settled devoluções):
   * the daily provider statement (src/reconciliation/provider-statements.ts). Throws ConnectorError.
   */
  dayMovements?(date: string): Promise<ProviderDay>;
}

/** One movement of the provider account, as the provider reports it. Amounts are exact decimal text, positive. */
export interface ProviderMovement {
  amount: string;
  direction: 'credit' | 'debit';
  date: string;
  /** The provider's id of the movement (unique in the account): STP's order id, Pix's end-to-end or return id. */
  bankId: string;
  endToEndId?: string;
  claveRastreo?: string;
  /** The provider undoing an earlier movement (an STP order returned by the receiving bank). */
  reversal?: boolean;
  counterparty?: { name?: string; document?: string; account?: string };
  info?: string;
}

/** A provider account's day: which account (as statements name it), its currency, its movements. */
export interface ProviderDay {
  account: string;
  currency: string;
  date: string;
  movements: ProviderMovement[];
}

/**
 * The members of a connector no provider reports to: its payments are confirmed outside caja's
 * calls (staging's sandbox, the operator reading a bank statement), so there is nothing to read
 * back or parse, and its refunds stay PENDING until someone settles them.
 */
export const confirmedOutsideProvider = {
  async chargeStatus(): Promise<ChargeStatus> {
    return { status: 'pending' };
  },
  async readPayment(): Promise<ProviderPayment | null> {
    return null;
  },
  parseHint(): Hint[] {
    return [];
  },
  async refund(): Promise<RefundOutcome> {
    return { status: 'PENDING' };
  },
  async refundStatus(): Promise<RefundOutcome | null> {
    return null;
  },
} satisfies Partial<PayinConnector>;
