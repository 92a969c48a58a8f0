// The connector kind's contract: everything caja knows about one provider, declared in the
// provider's folder (src/connectors/<name>/) and listed once in src/connectors/providers.ts.
// The faces read it and are written once for every kind:
//
//   PUT/GET /admin/connectors/{name}[/payments]  src/api/admin/connector-routes.ts  (`admin`, `settings`)
//   caja connector {name} set|show|resend        src/cli/connectors.ts              (`settings`, `cli`)
//   /ops/connectors/{name}                       src/web/ops/connector-settings.ts  (`settings.fields`)
//   the connectors worker                        src/connectors/worker.ts           (`intervals.poll`)
//
// A kind imports no feature service and no registry: what it needs at run time (its built
// connector, the payments caja kept for it) is handed to it by the face or worker that calls it.
import type { FastifyBaseLogger } from 'fastify';
import { type Config, ConfigError } from '../config/config.ts';
import type { AppContext } from '../config/context.ts';
import type { PayinConnector, ProviderPayment } from './payin.ts';
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

/**
 * What a provider's post to one of its callback paths means, as its kind parsed and verified it.
 * The kind moves no money: the generic callback route (src/api/connectors/routes.ts) hands a
 * payment to deposits, an order's hint to cashouts and refunds, and answers.
 */
export type CallbackOutcome =
  /** Answered as is (e.g. a post already applied, answered from the database). */
  | { kind: 'answer'; body: Record<string, unknown> }
  /** A payment read back from the provider (never taken from the post): applied once, then answered from what was kept. */
  | { kind: 'payment'; payment: ProviderPayment; answer(kept: { status: string; reason: string | null; seen_via?: string }): Record<string, unknown> }
  /** A sent order (a cashout's, else a refund's) changed state: a hint; the order is looked up before anything moves. */
  | { kind: 'order'; reference: string | null; providerId: string | null; body: Record<string, unknown> }
  | { kind: 'not_configured' }
  | { kind: 'forbidden'; message: string }
  | { kind: 'invalid'; details: string[] }
  /** The provider does not show what the post names (forged, or not visible yet): nothing applied. */
  | { kind: 'unknown' }
  | { kind: 'unavailable'; message: string };

/** One path under /connectors/{name}/ the provider posts to. */
export interface KindCallback {
  path: string;
  /** Parses and verifies the post; `connector` is the configured one (null: not configured). */
  receive(ctx: AppContext, connector: PayinConnector | null, post: { headers: Record<string, unknown>; body: unknown }): Promise<CallbackOutcome>;
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
  /** What reconciliation matches a statement line on: the provider's payment id, or the charge's reference. */
  readonly matchKey?: 'payment_id' | 'charge_reference';
  /** Its workers' intervals: `poll`, the reconciliation poll (default 60 seconds). */
  readonly intervals?: Readonly<Record<string, KindInterval>>;

  /**
   * Its callbacks besides /connectors/{name}/webhook[/pix] (which every connector with `parseHint`
   * answers: payment hints read back and applied).
   */
  readonly callbacks?: readonly KindCallback[];

  /** Its configuration: absent for a kind that nobody configures (staging's). */
  readonly settings?: {
    /** The console's form (absent: the kind has a page of its own, as own accounts' list). */
    readonly fields?: readonly KindField[];
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
  };

  /** `caja connector {name} …`. */
  readonly cli?: {
    /** Printed after `set`. */
    savedNote: string;
    /**
     * `caja connector {name} {action} ID`: a stopped send of this provider sent again under a new
     * reference, by action (`resend`, `resend-cashout`): whose it is (a cashout's order, a
     * refund), how messages name it ("STP order", "Pix devolução") and its reference ("idEnvio").
     */
    resend?: Readonly<Record<string, { what: 'cashout' | 'refund'; names: string; reference?: string }>>;
  };
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
