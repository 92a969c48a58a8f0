// The provider statements worker: every CAJA_PROVIDER_STATEMENTS_SECONDS (0: never) it fetches the
// last CAJA_PROVIDER_STATEMENTS_DAYS closed days from every provider that lists them and imports
// them (provider-statements.ts). Any number of processes may run it: a day imports once. The first
// pass is an interval after the start (a restarting fleet does not ask the providers all at once).
import type { AppContext } from '../config/context.ts';
import { periodicWorker, type Worker } from '../jobs/periodic-worker.ts';
import { fetchRecentDays } from './provider-statements.ts';

export function providerStatementsWorker(ctx: AppContext): Worker | null {
  const { intervalSeconds } = ctx.config.providerStatements;
  if (intervalSeconds === 0) return null;
  return periodicWorker(ctx, 'provider-statements', intervalSeconds * 1000, async () => {
    const days = await fetchRecentDays(ctx);
    const imported = days.filter((d) => d.status === 'imported');
    if (imported.length) ctx.log.info({ days: imported }, 'provider statements imported');
  });
}
