// The one list of connector kinds: a provider is its folder (src/connectors/<name>/, whose kind
// declares everything about it: src/connectors/kind.ts) plus one line here. The registry, the
// admin routes, the CLI, the console and the connectors worker all read this list. Staging's
// stand-ins (./staging/) are the second list below, registered when providers are simulated.
import type { Config } from '../config/config.ts';
import { adyenKind } from './adyen/kind.ts';
import type { ConnectorKind, StandInKind } from './kind.ts';
import { ownAccountsKind } from './own-accounts.ts';
import { pixKind } from './pix/kind.ts';
import { stagingRegistryKind } from './staging/account-registry.ts';
import { stagingBankKind } from './staging/bank.ts';
import { stagingCardKind } from './staging/card.ts';
import { stagingCardNetworkKind } from './staging/card-network.ts';
import { stagingSimulatorKind } from './staging/simulator.ts';
import { stpKind } from './stp/kind.ts';

const KINDS: ConnectorKind[] = [
  pixKind,
  ownAccountsKind,
  stpKind,
  adyenKind,
];

/** Every kind, in the order their routes are registered. */
export function connectorKinds(): readonly ConnectorKind[] {
  return KINDS;
}

export function connectorKind(name: string): ConnectorKind | undefined {
  return KINDS.find((k) => k.name === name);
}

/**
 * Staging's stand-ins, each a kind that declares what it stands in for (src/connectors/kind.ts
 * StandInKind): the simulator (every method but cards), the card network (card methods, on its own
 * card page), the card refund network, the bank (every country's cashouts) and the account/Pix-key
 * registry. Nobody configures them: no admin route, CLI entry or console form is made for them.
 */
const STAND_INS: readonly StandInKind[] = [
  stagingSimulatorKind,
  stagingCardKind,
  stagingCardNetworkKind,
  stagingBankKind,
  stagingRegistryKind,
];

/** The stand-ins registered in a process of this configuration: staging's when providers are simulated, else none. */
export function standInKinds(config: Pick<Config, 'simulated'>): readonly StandInKind[] {
  return config.simulated ? STAND_INS : [];
}

const listeners: (() => void)[] = [];

/** Told when the list changes (the registry forgets what it derived from it). */
export function onKindsChanged(f: () => void): void {
  listeners.push(f);
}

/**
 * Adds a kind from outside this list: a test folder's fake provider (test/connectors/extra-kind.test.ts).
 * Registered before the server is built, it gets every face the listed kinds get.
 */
export function registerKind(kind: ConnectorKind): void {
  if (KINDS.some((k) => k.name === kind.name)) throw new Error(`connector kind '${kind.name}' is registered already`);
  if (!/^[a-z0-9_]{1,32}$/.test(kind.name)) throw new Error(`connector kind name '${kind.name}' must be 1-32 of a-z, 0-9, _`);
  KINDS.push(kind);
  for (const f of listeners) f();
}
