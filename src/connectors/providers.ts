// The one list of connector kinds: a provider is its folder (src/connectors/<name>/, whose kind
// declares everything about it: src/connectors/kind.ts) plus one line here. The registry, the
// admin routes, the CLI, the console and the connectors worker all read this list.
import { adyenKind } from './adyen/kind.ts';
import type { ConnectorKind } from './kind.ts';
import { ownAccountsKind } from './own-accounts.ts';
import { pixKind } from './pix/kind.ts';
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
