// The loop every background worker runs: one pass, then the next after an interval.
import type { AppContext } from '../config/context.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

/**
 * How often staging's timed outcomes (magic-value deposits, the staging bank's steps) are looked
 * for. The docs promise them within about a second of their due time, so they run on this short
 * round of their own rather than on CAJA_EXPIRY_INTERVAL_MS (5 s), which would add up to a whole
 * round to every promised delay. Each round is one indexed query for due rows.
 */
export const DUE_OUTCOMES_INTERVAL_MS = 1000;

/** A background worker as the process runs it: a name and a way to stop it. */
export interface Worker {
  name: string;
  stop(): Promise<void>;
}

/**
 * A worker that runs `pass` every `intervalMs`, one pass at a time (a slow pass is not overlapped
 * by the next tick); stop() waits for the pass in flight. With atStart, the first pass runs at
 * once rather than an interval later (the rates worker: a restarted process should not wait).
 */
export function periodicWorker(ctx: AppContext, name: string, intervalMs: number, pass: () => Promise<void>, o: { atStart?: boolean } = {}): Worker {
  let stopped = false;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (stopped || running) return;
    running = pass()
      // The database away (a failover) is expected to pass: the next pass retries; a warning.
      .catch((err) => ctx.log[isDatabaseUnavailable(err) ? 'warn' : 'error']({ err }, `${name} worker pass failed`))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  if (o.atStart) tick();
  return {
    name,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
