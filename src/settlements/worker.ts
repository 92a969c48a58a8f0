// The settlement worker: every CAJA_SETTLEMENT_INTERVAL_SECONDS it makes the reports of the days
// that ended at least CAJA_SETTLEMENT_DELAY_MINUTES ago, in each merchant's timezone. Any number
// of processes may run it: a report is made once.
import type { AppContext } from '../config/context.ts';
import { periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { generateDueReports } from './service.ts';

export function settlementWorker(ctx: AppContext): Worker {
  const { intervalSeconds, delayMinutes } = ctx.config.settlements;
  return periodicWorker(ctx, 'settlements', intervalSeconds * 1000, async () => {
    const made = await generateDueReports(ctx, { now: ctx.now(), delayMinutes });
    if (made > 0) ctx.log.info({ made }, 'settlement reports generated');
  }, { atStart: true });
}
