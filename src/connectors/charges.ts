// Withdrawing a cancelled deposit's charge at its provider. (A failure to create a charge is the
// deposit service's DepositError provider_*; its faces answer it from src/http/errors.ts.)
import type { AppContext } from '../config/context.ts';
import { payinConnectorNamed } from './registry.ts';

/**
 * After a deposit was cancelled (customer, sandbox): its charge at a real provider is withdrawn
 * so that it can no longer be paid. Best effort: a payment that still arrives is kept as
 * unmatched for the operator (src/connectors/payments.ts). Expired deposits need nothing: their
 * charge expires at the same time.
 */
export async function withdrawCharge(ctx: AppContext, d: { id: number; connector: string | null; connector_reference: string | null }): Promise<void> {
  if (!d.connector || !d.connector_reference) return;
  try {
    const connector = await payinConnectorNamed(ctx, d.connector);
    if (connector && !connector.simulated) await connector.cancelCharge?.(d.connector_reference);
  } catch (err) {
    ctx.log.warn({ err, depositId: d.id, connector: d.connector }, 'the cancelled deposit\'s charge could not be withdrawn at the provider');
  }
}
