// The connector kind's contract: everything caja knows about one provider, declared in the
// provider's folder (src/connectors/<name>/) and listed once in src/connectors/providers.ts.
// The faces read it and are written once for every kind:
//
//   PUT/GET /admin/connectors/{name}[/payments]  src/api/admin/connector-routes.ts  (`admin`, `settings`)
//   caja connector {name} set|show|resend        src/cli/connectors.ts              (`settings`, `cli`)
//   /ops/connectors/{name}                       src/web/ops/connector-settings.ts  (`settings.fields` or `settings.list`)
//   the reconciliation poll                      src/deposits/payments-worker.ts    (`intervals.poll`)
//
// Staging's stand-ins (src/connectors/staging/) are kinds too, of the staging-only extension
// `StandInKind` below: listed in providers.ts (`standInKinds`, registered when providers are
// simulated) and chosen by the registry by what they declare they stand in for.
//
// A kind imports no feature service and no registry: what it needs at run time (its built
// connector, the payments caja kept for it) is handed to it by the face or worker that calls it.
import type { FastifyBaseLogger } from 'fastify';
import { type Config, ConfigError } from '../config/config.ts';
import type { AppContext } from '../config/context.ts';
import type { CardDetail, CardField, CardInput, CardProblem } from '../domain/cards.ts';
import type { Decimal } from '../domain/money.ts';
import type { AccountRegistry } from './account-registry.ts';
import type { CardRefundConnector } from './card-network.ts';
import type { DepositNames, PayinConnector, ProviderPayment } from './payin.ts';
import type { PayoutConnector } from './payout.ts';
import type { StoredConnector } from './store.ts';

export type Pair = { country: string; method: string };

/** One field of the kind's configuration, as the console's form shows it. */
export interface KindField {
  name: string;
  /** Sealed at rest and write-only: empty keeps what is stored. */
  secret?: boolean;
  /** A PEM block: a text area. */
  multiline?: boolean;
  /** May be left empty. */
  optional?: boolean;
  /** Where caja connects or whom it trusts there (a URL, a CA, a certificate): changing it needs every secret typed again. */
  endpoint?: boolean;
}

/** One field of a list's row (KindList). */
export interface KindRowField {
  name: string;
  /** Names the row: one row per value of the key fields (own accounts: country and method), each a code (trimmed, upper-cased). */
  key?: boolean;
  /** May be left empty. */
  optional?: boolean;
}

/** A list form's words on the console, in one of its languages. */
export interface KindListWords {
  /** The page's title, and the name its link on the connectors page shows. */
  title: string;
  /** What the list is, under the title. */
  hint: string;
  /** The heading of the form that adds or replaces a row. */
  set: string;
  /** Column and box labels by field name (default: the field's name). */
  labels?: Readonly<Record<string, string>>;
  /** Box hints by field name (an optional field's: where it is required). */
  hints?: Readonly<Record<string, string>>;
}

/**
 * A configuration that is a list of rows, set or removed one row at a time (own accounts: one
 * account per country and method). The console shows the rows as a table, each with its remove
 * button, and a form that adds the row of its key or replaces it (src/web/ops/connector-settings.ts,
 * through src/connectors/configure.ts setListRow); the whole list is checked by `validate`.
 */
export interface KindList {
  /** The fields of a row, in the table's and the form's order. */
  readonly fields: readonly KindRowField[];
  /** The body `validate` takes holds the rows under this name ({accounts: [...]}); its details name a row's field `{path}[i].{field}`. */
  readonly path: string;
  /** The rows of a stored configuration, as `validate` normalized them. */
  rows(stored: Pick<StoredConnector, 'settings'>): readonly Readonly<Record<string, string | undefined>>[];
  /** The audit row of a change: action `{action}_set` (the row recorded under `row`) or `{action}_removed` (its key fields). */
  readonly audit: { action: string; row: string };
  /** Its words on the console by language (English where a language has none). */
  readonly words: { en: KindListWords } & Readonly<Partial<Record<string, KindListWords>>>;
}

export type Validated = { ok: true; settings: Record<string, string>; secrets: Record<string, string> } | { ok: false; details: string[] };

/** A whole number of seconds a kind's worker waits, read from its own environment variable. */
export interface KindInterval {
  env: string;
  default: number;
  min: number;
  max: number;
}

/** One payment caja kept for a connector (connector_payments), handed to the kind's admin view. */
export interface KeptPaymentRow {
  payment_id: string;
  charge_reference: string | null;
  deposit_id: number | null;
  amount: string;
  currency: string;
  receiver: string | null;
  paid_at: Date;
  status: string;
  reason: string | null;
  seen_via: string;
  created_at: Date;
}

/** One chargeback caja keeps on a deposit collected by a connector (deposit_disputes), handed to the kind's admin view. */
export interface KeptDisputeRow {
  id: number;
  deposit_id: number;
  payment_reference: string;
  status: string;
  reason: string | null;
  reason_code: string | null;
  disputed_amount: string;
  disputed_currency: string;
  return_id: number | null;
  debit: string | null;
  debit_currency: string | null;
  deadline_at: Date | null;
  updated_at: Date;
}

/**
 * What a provider's post to one of its callback paths means, as its kind parsed and verified it.
 * The kind moves no money: the generic callback route (src/api/connectors/routes.ts) hands a
 * payment to deposits, an order's hint to cashouts and refunds, and answers.
 */
export type CallbackOutcome =
  /** Answered as is (e.g. a post already applied, answered from the database). */
  | { kind: 'answer'; body: Record<string, unknown> }
  /** A payment read back from the provider (never taken from the post): applied once, then answered from what was kept (null: nothing kept, the operator's own money). */
  | { kind: 'payment'; payment: ProviderPayment; answer(kept: { status: string; reason: string | null; seen_via?: string } | null): Record<string, unknown> }
  /** A sent order (a cashout's, else a refund's) changed state: a hint; the order is looked up before anything moves. */
  | { kind: 'order'; reference: string | null; providerId: string | null; body: Record<string, unknown> }
  | { kind: 'not_configured' }
  | { kind: 'forbidden'; message: string }
  | { kind: 'invalid'; details: string[] }
  /** The provider does not show what the post names (forged, or not visible yet): nothing applied. */
  | { kind: 'unknown' }
  | { kind: 'unavailable'; message: string }
  /**
   * An acquirer's signed statements (e.g. card notifications, which have no payment to read back):
   * each event is applied once by its feature (deposits; a refund's outcome looked up by refunds),
   * then recorded by the kind; the batch is answered with `answer` as the provider expects.
   */
  | { kind: 'events'; connector: PayinConnector; events: readonly ReceivedEvent[]; answer: { contentType: string; body: string } };

/** The disputed payment's notice, in the acquirer's words (amounts in the payment's currency). */
export interface DisputeNoticeOf {
  /** The notification's own reference (with eventCode: applied once). */
  pspReference: string;
  eventCode: string;
  /** The disputed payment's reference. */
  paymentReference: string;
  amount: Decimal;
  currency: string;
  reason: string | null;
  reasonCode: string | null;
  deadlineAt: Date | null;
}

/** What one acquirer statement means to caja. */
export type AcquirerEvent =
  /** The payment is authorised: completes its deposit (amount and charge must match); `card` kept on it. */
  | { type: 'paid'; payment: ProviderPayment; card: object | null }
  /** A charge (by its reference) expired unpaid: a PENDING deposit is cancelled, the note recorded. */
  | { type: 'expired'; chargeReference: string; note: string }
  /** A card attempt on a charge (by its reference) was refused: shown on its PENDING deposit (card_refusal), which stays payable. */
  | { type: 'refused'; chargeReference: string; reason: string; reasonCode: string | null }
  /** A refund (by its reference) changed state: looked up at once. */
  | { type: 'refund'; reference: string }
  | { type: 'dispute'; notice: DisputeNoticeOf }
  /** Recorded only (a capture, a report). */
  | { type: 'other' };

/** One statement of a verified batch, with the kind's own record of it (applied once by its key). */
export interface ReceivedEvent {
  event: AcquirerEvent;
  /** Whether this statement was recorded already (a duplicate: nothing applied). */
  seen(): Promise<boolean>;
  /** Records it after it was applied; false when another delivery recorded it first. */
  record(): Promise<boolean>;
}

/** What a kind's callback may ask of caja's features, handed to it by the face that calls it. */
export interface CallbackFacts {
  /** The deposits of `connector` a payment into the operator's own account names (deposits' look-up), newest first. */
  depositsNamed(connector: string, names: DepositNames): Promise<number[]>;
}

/** One path under /connectors/{name}/ the provider posts to. */
export interface KindCallback {
  path: string;
  /** Parses and verifies the post; `connector` is the configured one (null: not configured). */
  receive(ctx: AppContext, connector: PayinConnector | null, post: { headers: Record<string, unknown>; body: unknown }, facts: CallbackFacts): Promise<CallbackOutcome>;
}

export interface ConnectorKind {
  /** The name in paths (/admin/connectors/{name}, /connectors/{name}/…), the store and deposits.connector. */
  readonly name: string;
  /** How messages name it ("Invalid {label} connector configuration", "Configure {label}"). */
  readonly label: string;
  /** The (country, method) pairs it collects, e.g. Pix: BR/IX. */
  readonly serves: readonly Pair[];
  /** What a configuration of it serves, when that is a part of `serves` (own accounts: its list). */
  servesOf?(stored: StoredConnector): readonly Pair[];
  /** The connector of a stored configuration. */
  build(ctx: AppContext, stored: StoredConnector): PayinConnector;
  /** The countries whose cashouts it pays (the built connector's `payout` sends them). */
  readonly paysOut?: readonly string[];
  /** The payout hints a post to its webhook carries besides payment hints (Pix: a send's idEnvio and end-to-end id). */
  payoutHints?(body: unknown): { reference: string | null; providerId: string | null }[];
  /** A fresh random reference for a payout order (the same as its payout's newReference), for a stopped order sent again without building the connector. */
  newPayoutReference?(): string;
  /** Whether deposits collected through it are refunded through it (the built connector's `refund`). */
  readonly refunds?: boolean;
  /**
   * What reconciliation (src/reconciliation/) matches a bank statement line on:
   *   payment_id       the provider's payment id (connector_payments); the connector completes
   *                    its deposits, a statement line only confirms them
   *   payment_id_head  the same, and the payment id's part before its first ':' (a SPEI clave de
   *                    rastreo, repeated across banks and days: told apart by the CLABEs it names)
   *   charge_reference the deposit's reference the payer wrote (or its amount): the statement is
   *                    the only word, so a matched line completes a PENDING deposit
   * Absent: its deposits are matched only by the deposit's own reference, and confirmed.
   */
  readonly matchKey?: 'payment_id' | 'payment_id_head' | 'charge_reference';
  /** The bank accounts a configuration of it holds, as statements name them (reconciliation imports only registered accounts' statements). */
  statementAccounts?(stored: StoredConnector): readonly string[];
  /** Whether its built connector lists a day's movements (`day`): POST /admin/reconciliation/provider-statements and the statements worker fetch them. */
  readonly statements?: boolean;
  /** Its workers' intervals: `poll`, the reconciliation poll (default 60 seconds). */
  readonly intervals?: Readonly<Record<string, KindInterval>>;

  /**
   * Its callbacks besides /connectors/{name}/webhook[/pix] (which every connector with `parseHint`
   * answers: payment hints read back and applied).
   */
  readonly callbacks?: readonly KindCallback[];

  /** Its configuration: absent for a kind that nobody configures (staging's). */
  readonly settings?: {
    /** The console's form: one box per field (a kind whose configuration is a list declares `list` instead). */
    readonly fields?: readonly KindField[];
    /** The console's list form: rows of fields, set or removed one at a time (own accounts). */
    readonly list?: KindList;
    /** The body PUT /admin/connectors/{name} and `caja connector {name} set --file` take, checked. */
    validate(body: unknown): Validated;
    /** GET's answer: settings without secrets, and the health fields named for this provider. */
    view(ctx: Pick<AppContext, 'db' | 'config'>): Promise<object | null>;
    /** What the audit row of a change records (default: settings, and the names of the secrets set). */
    auditDetail?(v: Extract<Validated, { ok: true }>): Record<string, unknown>;
    /** Right after a save: ask the provider whether it takes it (recorded in health); `connector` is the one just built. */
    afterSave?(ctx: AppContext, connector: PayinConnector | null, log: FastifyBaseLogger): Promise<void>;
  };

  /** Its admin routes' OpenAPI words and schemas (answers stay as each provider names them). */
  readonly admin?: {
    summaries: { put: string; putDescription?: string; get: string; payments?: string };
    configBody: object;
    viewSchema: object;
    /** Messages of the generic route, when not "Invalid {label} connector configuration" / "The {label} connector is not configured". */
    invalid?: string;
    notConfigured?: string;
    /** GET /admin/connectors/{name}/payments: one kept payment as this provider names its fields. */
    payments?: { schema: object; row(r: KeptPaymentRow): object };
    /** GET /admin/connectors/{name}/disputes: the chargebacks on its payments, as this provider names them. */
    disputes?: { summary: string; schema: object; row(d: KeptDisputeRow): object };
  };

  /** `caja connector {name} …`. */
  readonly cli?: {
    /** Printed after `set`. */
    savedNote: string;
    /** `caja help`'s words for `set` and `show` (the usage lines are generated from the registered kinds). */
    help?: { set: string; show?: string };
    /**
     * `caja connector {name} {action} ID`: a stopped send of this provider sent again under a new
     * reference, by action (`resend`, `resend-cashout`): whose it is (a cashout's order, a
     * refund), how messages name it ("STP order", "Pix devolução") and its reference ("idEnvio").
     */
    resend?: Readonly<Record<string, { what: 'cashout' | 'refund'; names: string; reference?: string }>>;
  };
}

/** What a card page caja serves itself answers to a card typed on it. */
export type CardPageAnswer =
  | { kind: 'authorised' }
  | { kind: 'declined' }
  | { kind: 'challenge'; detail: CardDetail }
  | { kind: 'invalid'; errors: Partial<Record<CardField, CardProblem>> };

/**
 * A card page caja serves itself (/checkout/{token}/card, src/web/checkout/routes.ts) for a kind's
 * charges, by their reference (deposits.connector_reference): staging's card network.
 */
export interface OwnCardPage {
  /** A card typed for the charge (of the card method `methodCode`): the full number lives only in this call's memory. */
  pay(ctx: AppContext, reference: string, methodCode: string, input: CardInput): Promise<CardPageAnswer>;
  /** The card waiting for the customer's 3-D Secure answer on the charge, or null. */
  openChallenge(ctx: AppContext, reference: string): Promise<CardDetail | null>;
  /** The customer's 3-D Secure answer: authorised or refused; false when no challenge is open. */
  answerChallenge(ctx: AppContext, reference: string, approve: boolean): Promise<boolean>;
}

/**
 * A stand-in of staging (src/connectors/staging/): a kind registered only when providers are
 * simulated (the config's `simulated` capability: src/connectors/providers.ts standInKinds).
 * Nobody configures one, so it declares no settings, secrets, admin view, console form, CLI
 * entry, callbacks or workers, and is built from the database alone. It declares what it stands
 * in for; the registry (src/connectors/registry.ts) chooses it by that wherever no connector the
 * operator configured serves.
 */
export interface StandInKind extends Pick<ConnectorKind, 'name' | 'label'> {
  /** The (country, method) pairs it collects, and its connector (deposits.connector is its name). */
  readonly collects?: { readonly serves: readonly Pair[]; build(ctx: AppContext): PayinConnector };
  /**
   * Its deposits are completed by the sandbox, outside any provider: nothing reports a payment
   * late, so one past its expiry is cancelled at once, without the grace a provider's gets
   * (src/deposits/worker.ts).
   */
  readonly completedBySandbox?: boolean;
  /** Its charges are paid on a card page caja serves itself. */
  readonly cardPage?: OwnCardPage;
  /** The card network card refunds go through (every card deposit no connector refunds). */
  readonly refundsCards?: CardRefundConnector;
  /** The bank network of every country's cashouts that no configured network pays. */
  readonly paysOut?: PayoutConnector;
  /** Answers whether an account or a Pix key exists (account and Pix-key validation), in every country. */
  readonly validatesAccounts?: AccountRegistry;
}

/** The value of one of a kind's intervals in this process (its environment variable, else its default). */
export function kindSeconds(config: Pick<Config, 'connectors'>, interval: KindInterval): number {
  const raw = config.connectors.env[interval.env];
  if (raw === undefined || raw === '') return interval.default;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${interval.env} must be a whole number, got '${raw}'`);
  const n = Number(raw);
  if (n < interval.min || n > interval.max) throw new ConfigError(`${interval.env} must be between ${interval.min} and ${interval.max}, got ${n}`);
  return n;
}

/** A kind's reconciliation poll interval in seconds (60 unless it declares `intervals.poll`). */
export function pollSeconds(config: Pick<Config, 'connectors'>, kind: Pick<ConnectorKind, 'intervals'> | undefined): number {
  const poll = kind?.intervals?.poll;
  return poll ? kindSeconds(config, poll) : 60;
}
