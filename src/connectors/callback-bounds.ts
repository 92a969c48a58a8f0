// Bounds on the work an unauthenticated callback can cause at a provider. A callback is a hint:
// each payment it names is read back from the provider before anything moves (payments.ts,
// stp/callbacks.ts), so a forged one credits nothing; these bounds keep it from costing much:
//   - ids already applied are answered from the database, never read again;
//   - ids the provider did not know are remembered (UNKNOWN_TTL_MS, at most UNKNOWN_MAX of them)
//     and not read again meanwhile (a real payment the PSP shows later reaches caja by the poll);
//   - one callback reads at most READS_PER_CALLBACK payments; the rest are left to the poll;
//   - all callbacks of one connector read at most READS_PER_MINUTE payments a minute; beyond it
//     the hints are left to the poll (a flood of forged callbacks delays, never loses, a payment).
// The state is per process and per running service (a WeakMap on its context).
import type { AppContext } from '../config/context.ts';

export const READS_PER_CALLBACK = 10;
export const READS_PER_MINUTE = 300;
export const UNKNOWN_TTL_MS = 2 * 60_000;
export const UNKNOWN_MAX = 10_000;

interface State {
  unknown: Map<string, number>;
  budget: Map<string, { minute: number; used: number }>;
}

const states = new WeakMap<AppContext, State>();

function stateOf(ctx: AppContext): State {
  let s = states.get(ctx);
  if (!s) states.set(ctx, (s = { unknown: new Map(), budget: new Map() }));
  return s;
}

/** True when the provider said it did not know this id less than UNKNOWN_TTL_MS ago. */
export function knownUnknown(ctx: AppContext, connector: string, id: string): boolean {
  const key = `${connector}\u0000${id}`;
  const until = stateOf(ctx).unknown.get(key);
  if (until === undefined) return false;
  if (until > ctx.now().getTime()) return true;
  stateOf(ctx).unknown.delete(key);
  return false;
}

/** Remembers that the provider did not know this id (the oldest entry goes when full). */
export function rememberUnknown(ctx: AppContext, connector: string, id: string): void {
  const { unknown } = stateOf(ctx);
  const key = `${connector}\u0000${id}`;
  unknown.delete(key);
  if (unknown.size >= UNKNOWN_MAX) unknown.delete(unknown.keys().next().value!);
  unknown.set(key, ctx.now().getTime() + UNKNOWN_TTL_MS);
}

/** Takes one provider read from the connector's budget of this minute; false when it is spent. */
export function takeRead(ctx: AppContext, connector: string): boolean {
  const { budget } = stateOf(ctx);
  const minute = Math.floor(ctx.now().getTime() / 60_000);
  const b = budget.get(connector);
  if (!b || b.minute !== minute) {
    budget.set(connector, { minute, used: 1 });
    return true;
  }
  if (b.used >= READS_PER_MINUTE) return false;
  b.used++;
  return true;
}
