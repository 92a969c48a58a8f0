// Which connector serves what: the one place that chooses, from the kinds (src/connectors/providers.ts)
// by what each declares (src/connectors/kind.ts), never by a provider's or the environment's name.
//
//   payinConnectorFor(ctx, country, method)  the connector that collects a method in a country:
//                                            a real connector the operator configured
//                                            (PUT /admin/connectors/<name>), else the stand-in
//                                            that collects it (staging), else null: not served.
//   servedMethods(ctx, country)              the method codes of a country that some connector
//                                            serves (staging: all of the catalog's)
//   serving(ctx)                             both of those, read once (for use inside a transaction)
//   payinConnectorNamed(ctx, name)           the connector a deposit was created through
//                                            (deposits.connector), for its completion and refunds
//   payoutConnector(config)                  the bank network cashouts go through (a stand-in's `paysOut`)
//   orderPayoutConnectors(ctx)               the networks the operator configured that cashouts
//                                            leave through as orders (STP for MX), in any env
//   payoutConnectorFor(ctx, country)         the network of one country's cashouts
//   cardRefundConnector(config)              the card network card refunds go through (`refundsCards`)
//   accountRegistryFor(config)               the banks' and the DICT's answers (account and Pix-key validation: `validatesAccounts`)
//   ownCardPage(config, connector)           the card page caja serves itself for a connector's charges (`cardPage`)
//   completedBySandbox(config)               the connectors whose deposits the sandbox completes (`completedBySandbox`)
//
// Staging's stand-ins are kinds of their own (./staging/, StandInKind), registered only when the
// config's `simulated` capability is on (providers.ts standInKinds): each declares what it stands
// in for (which pairs it collects, card refunds, payouts, account validation) and is chosen here
// by that, wherever no connector the operator configured serves.
//
// A real connector's configuration lives in the `connectors` table (secrets sealed with the
// master key) and is read through the process's TTL cache (ctx.cache, cleared when this process
// changes it; on PostgreSQL every other process clears it at once too, told by the database:
// followConnectorChanges, migration 055). Methods no real connector
// kind can serve are answered without reading anything: the deposit creation path stays a map
// look-up.
import type { Config } from '../config/config.ts';
import type { AppContext } from '../config/context.ts';
import { catalogMethods, methodsForCountry } from '../domain/catalog.ts';
import { type ConnectorKind, kindSeconds, type OwnCardPage, pollSeconds, type StandInKind } from './kind.ts';
import type { PayinConnector } from './payin.ts';
import type { OrderPayoutConnector, PayoutConnector } from './payout.ts';
import { connectorKind, connectorKinds, onKindsChanged, standInKinds } from './providers.ts';
import { type AccountRegistry, unconnectedRegistry } from './account-registry.ts';
import type { CardRefundConnector } from './card-network.ts';
import { loadConnectorRows, type StoredConnector } from './store.ts';

export { connectorKind, connectorKinds };

const pairKey = (country: string, method: string) => `${country.trim().toUpperCase()}|${method.trim().toUpperCase()}`;

/** Every (country, method) some kind could serve: a deposit of any other needs no look-up. */
let servable: Set<string> | null = null;
onKindsChanged(() => {
  servable = null;
});

/** Whether any kind of real connector could serve the pair (else no configuration is read). */
function servableByKind(country: string, method: string): boolean {
  servable ??= new Set(connectorKinds().flatMap((k) => k.serves.map((s) => pairKey(s.country, s.method))));
  return servable.has(pairKey(country, method));
}

interface Configured {
  byName: Map<string, PayinConnector>;
  byPair: Map<string, PayinConnector>;
}

/** The stand-ins of a configuration, by the pairs they collect and by name (derived once per list). */
interface StandIns {
  byPair: ReadonlyMap<string, StandInKind>;
  byName: ReadonlyMap<string, StandInKind>;
  /** Every method of the catalog is collected by some stand-in. */
  wholeCatalog: boolean;
  all: readonly StandInKind[];
}

const derived = new WeakMap<readonly StandInKind[], StandIns>();

function standIns(config: Pick<Config, 'simulated'>): StandIns {
  const kinds = standInKinds(config);
  let s = derived.get(kinds);
  if (!s) {
    const byPair = new Map<string, StandInKind>();
    for (const k of kinds) for (const p of k.collects?.serves ?? []) if (!byPair.has(pairKey(p.country, p.method))) byPair.set(pairKey(p.country, p.method), k);
    s = {
      byPair, byName: new Map(kinds.map((k) => [k.name, k])), all: kinds,
      wholeCatalog: catalogMethods().every((m) => byPair.has(pairKey(m.country, m.code))),
    };
    derived.set(kinds, s);
  }
  return s;
}

/** The connector of the stand-in that collects the pair, or null. */
function standInFor(ctx: AppContext, country: string, method: string): PayinConnector | null {
  return standIns(ctx.config).byPair.get(pairKey(country, method))?.collects!.build(ctx) ?? null;
}

/** Built connectors are kept per database and configuration version: a client keeps its token. */
const built = new WeakMap<object, Map<string, { version: string; connector: PayinConnector }>>();

function buildOnce(ctx: AppContext, kind: ConnectorKind, stored: StoredConnector): PayinConnector {
  let perDb = built.get(ctx.db);
  if (!perDb) built.set(ctx.db, (perDb = new Map()));
  const version = stored.updatedAt.toISOString();
  const hit = perDb.get(stored.name);
  if (hit && hit.version === version) return hit.connector;
  const connector = kind.build(ctx, stored);
  // The previous configuration's connector lets its connections go (calls in flight finish).
  hit?.connector.close?.();
  perDb.set(stored.name, { version, connector });
  return connector;
}

async function configured(ctx: AppContext): Promise<Configured> {
  return ctx.cache.of<Configured>('connectors').get('all', async () => {
    const byName = new Map<string, PayinConnector>();
    const byPair = new Map<string, PayinConnector>();
    for (const stored of await loadConnectorRows(ctx)) {
      const kind = connectorKind(stored.name);
      if (!kind || !stored.enabled) continue;
      let connector: PayinConnector;
      try {
        connector = buildOnce(ctx, kind, stored);
      } catch (err) {
        // A configuration that no longer builds (say, a master key rotated without re-sealing)
        // serves nothing rather than failing every deposit.
        ctx.log.error({ err, connector: stored.name }, 'connector configuration unusable');
        continue;
      }
      byName.set(stored.name, connector);
      for (const s of kind.servesOf?.(stored) ?? kind.serves) byPair.set(pairKey(s.country, s.method), connector);
    }
    return { byName, byPair };
  });
}

/**
 * Every process on PostgreSQL listens for changes of the connectors' configuration (a trigger
 * notifies 'caja_connectors' at commit) and forgets its cached copy at once: a connector saved on
 * one process serves on all of them from its next request. Answers the function that stops it.
 */
export async function followConnectorChanges(ctx: AppContext): Promise<() => Promise<void>> {
  if (!ctx.db.listen) return async () => undefined;
  return ctx.db.listen('caja_connectors', () => ctx.cache.of<Configured>('connectors').clear());
}

/** The connector that collects `method` in `country`, or null: not served here. */
export async function payinConnectorFor(ctx: AppContext, country: string, method: string): Promise<PayinConnector | null> {
  // A method no kind of real connector serves: nothing to read.
  if (!servableByKind(country, method)) return connectorFrom(ctx, NOTHING_CONFIGURED, country, method);
  return connectorFrom(ctx, (await configured(ctx)).byPair, country, method);
}

/** Stand-ins collect every method of the catalog (staging): nothing to read to know what is served. */
export function servesEveryMethod(ctx: AppContext): boolean {
  return standIns(ctx.config).wholeCatalog;
}

/** The method codes of `country` some connector serves. */
export async function servedMethods(ctx: AppContext, country: string): Promise<Set<string>> {
  // Stand-ins serve everything, or no kind of real connector serves the country: nothing to read.
  if (servesEveryMethod(ctx) || !methodsForCountry(country).some((m) => servableByKind(country, m.code))) return methodsFrom(ctx, NOTHING_CONFIGURED, country);
  return methodsFrom(ctx, (await configured(ctx)).byPair, country);
}

/**
 * What serves which method, read once. The checkout takes it before its transactions: the
 * configuration read on a cache miss inside one would wait on PGlite's one connection (held by
 * that transaction) for ever.
 */
export interface Serving {
  methods(country: string): Set<string>;
  payinConnector(country: string, method: string): PayinConnector | null;
}

export async function serving(ctx: AppContext): Promise<Serving> {
  const byPair = servesEveryMethod(ctx) ? NOTHING_CONFIGURED : (await configured(ctx)).byPair;
  return { methods: (country) => methodsFrom(ctx, byPair, country), payinConnector: (country, method) => connectorFrom(ctx, byPair, country, method) };
}

const NOTHING_CONFIGURED: ReadonlyMap<string, PayinConnector> = new Map();

function methodsFrom(ctx: AppContext, byPair: ReadonlyMap<string, PayinConnector>, country: string): Set<string> {
  const standIn = standIns(ctx.config).byPair;
  return new Set(methodsForCountry(country).map((m) => m.code).filter((code) => byPair.has(pairKey(country, code)) || standIn.has(pairKey(country, code))));
}

function connectorFrom(ctx: AppContext, byPair: ReadonlyMap<string, PayinConnector>, country: string, method: string): PayinConnector | null {
  // A configured connector of the pair first, else the stand-in that collects it (staging).
  if (!servableByKind(country, method)) return standInFor(ctx, country, method);
  return byPair.get(pairKey(country, method)) ?? standInFor(ctx, country, method);
}

/** The connector named on a deposit (deposits.connector), for its completion and refunds. */
export async function payinConnectorNamed(ctx: AppContext, name: string | null): Promise<PayinConnector | null> {
  if (name === null) return null;
  const standIn = standIns(ctx.config).byName.get(name)?.collects;
  if (standIn) return standIn.build(ctx);
  return (await configured(ctx)).byName.get(name) ?? null;
}

/** The card page caja serves itself for the charges of the connector a deposit names, or null (a provider's page). */
export function ownCardPage(config: Pick<Config, 'simulated'>, connector: string | null): OwnCardPage | null {
  return connector === null ? null : standIns(config).byName.get(connector)?.cardPage ?? null;
}

/** The connectors whose deposits the sandbox completes (no provider reports their payments late). */
export function completedBySandbox(config: Pick<Config, 'simulated'>): string[] {
  return standIns(config).all.filter((k) => k.completedBySandbox).map((k) => k.name);
}

/** Every configured real connector (workers poll and track through them). */
export async function configuredConnectors(ctx: AppContext): Promise<PayinConnector[]> {
  return [...(await configured(ctx)).byName.values()];
}

/**
 * The longest reconciliation poll interval of any kind, in seconds: a deposit charged at a
 * provider stays PENDING past its expiry for two of them (deposits/worker.ts).
 */
export function longestPollSeconds(config: Pick<Config, 'connectors'>): number {
  return Math.max(60, ...connectorKinds().map((k) => pollSeconds(config, k)));
}

/** Every kind's intervals, read once at start: a bad value stops the process there (ConfigError). */
export function checkKindIntervals(config: Pick<Config, 'connectors'>): void {
  longestPollSeconds(config);
  for (const k of connectorKinds()) for (const i of Object.values(k.intervals ?? {})) kindSeconds(config, i);
}

/** The bank network of cashouts no configured network pays: a stand-in's (staging's bank); production has none plugged in yet. */
export function payoutConnector(config: Pick<Config, 'simulated'>): PayoutConnector | null {
  return standIns(config).all.find((k) => k.paysOut)?.paysOut ?? null;
}

/**
 * The payout networks the operator configured (STP pays MX cashouts): chosen by configuration,
 * never by CAJA_ENV. Their cashouts are sent by src/cashouts/payouts.ts.
 */
export async function orderPayoutConnectors(ctx: AppContext): Promise<OrderPayoutConnector[]> {
  return [...(await configured(ctx)).byName.values()].flatMap((c) => (c.payout ? [c.payout] : []));
}

/**
 * The network a cashout of `country` leaves through: a network the operator configured for it
 * (STP for MX), else in staging the staging bank, else null: production refuses such a cashout
 * at creation (cashouts/service.ts).
 */
export async function payoutConnectorFor(ctx: AppContext, country: string): Promise<OrderPayoutConnector | PayoutConnector | null> {
  const cc = country.trim().toUpperCase();
  return (await orderPayoutConnectors(ctx)).find((c) => c.countries.includes(cc)) ?? payoutConnector(ctx.config);
}

/** The card network card refunds go through: a stand-in's (staging's); production has none yet. */
export function cardRefundConnector(config: Pick<Config, 'simulated'>): CardRefundConnector | null {
  return standIns(config).all.find((k) => k.refundsCards)?.refundsCards ?? null;
}

/** Who answers whether an account or a Pix key exists: a stand-in's (staging's simulated registry); production has none connected yet (lookups fail as unavailable). */
export function accountRegistryFor(c: Pick<Config, 'simulated'>): AccountRegistry {
  return standIns(c).all.find((k) => k.validatesAccounts)?.validatesAccounts ?? unconnectedRegistry;
}
