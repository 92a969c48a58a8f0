// The session sweep worker: every CAJA_EXPIRY_INTERVAL_MS it deletes the panel's and the operator
// console's sessions past their idle or absolute limit (each side's loadSession refuses them
// anyway; without the sweep a session nobody comes back to stays forever).
import type { AppContext } from '../config/context.ts';
import { periodicWorker, type Worker } from '../jobs/periodic-worker.ts';
import { sweepOperatorSessions } from '../operators/auth.ts';
import { sweepSessions } from '../panel/services/auth.ts';

/** One pass over both kinds of session; answers how many were deleted. Tests call it directly. */
export async function sweepExpiredSessions(ctx: AppContext): Promise<{ panel: number; operator: number }> {
  const now = ctx.now();
  return { panel: await sweepSessions(ctx.db, now), operator: await sweepOperatorSessions(ctx.db, now) };
}

export function sessionSweepWorker(ctx: AppContext): Worker {
  return periodicWorker(ctx, 'session-sweep', ctx.config.expiryIntervalMs, async () => {
    await sweepExpiredSessions(ctx);
  });
}
