// The rates worker: every CAJA_RATES_FETCH_MINUTES (and once at start) each configured source is
// asked for its latest rate. Several processes may run it: a rate is stored only when newer than
// the one stored, so concurrent passes store it once.
import type { AppContext } from '../config/context.ts';
import { periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { fetchRates } from './service.ts';
import { configuredSources } from './sources.ts';

export function ratesWorker(ctx: AppContext): Worker | null {
  const sources = configuredSources(ctx.config);
  if (sources.length === 0) return null;
  return periodicWorker(ctx, 'rates', ctx.config.rates.fetchMinutes * 60_000, async () => void (await fetchRates(ctx, sources)), { atStart: true });
}
