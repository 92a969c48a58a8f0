// Staging magic values: a deposit created with one of these completes or cancels by itself a few
// seconds later (CAJA_SANDBOX_AUTO_SECONDS), through the same transition and notifications as a
// real provider outcome. Documented in docs/deposits.md. Production ignores them.
//
//   payer.email  approve@…  or approve+anything@…   → COMPLETED (crypto: APPROVED, then COMPLETED)
//   payer.email  cancel@…   or cancel+anything@…    → CANCELLED
//   amount       cents .77 (e.g. "10.77")           → COMPLETED
//   amount       cents .66 (e.g. "10.66")           → CANCELLED
import type { Decimal } from './money.ts';

export type SandboxOutcome = 'approve' | 'cancel';

export function sandboxOutcome(email: string | undefined, amount: Decimal): SandboxOutcome | null {
  const local = email?.split('@')[0]?.toLowerCase();
  if (local === 'approve' || local?.startsWith('approve+')) return 'approve';
  if (local === 'cancel' || local?.startsWith('cancel+')) return 'cancel';
  // amount is at scale 2, so the last two digits of units are the cents.
  const cents = Number((amount.units < 0n ? -amount.units : amount.units) % 100n);
  if (amount.scale === 2 && cents === 77) return 'approve';
  if (amount.scale === 2 && cents === 66) return 'cancel';
  return null;
}
