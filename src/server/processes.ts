// CAJA_PROCESSES: how many server processes one `npm start` runs (node:cluster). Every process is
// a complete, stateless caja (HTTP server and background workers) over the same PostgreSQL; the
// workers claim jobs with FOR UPDATE SKIP LOCKED, so they share the work without talking to each
// other. The embedded database (PGlite) lives inside one process and cannot be shared: it allows 1.
import { availableParallelism } from 'node:os';
import { ConfigError, type Config } from '../config/config.ts';

export function processCount(env: Record<string, string | undefined>, config: Pick<Config, 'sandbox' | 'databaseUrl'>): number {
  const raw = env.CAJA_PROCESSES;
  if (raw === undefined || raw === '') {
    // A service without the sandbox (production) uses every core; a sandbox (staging: where
    // integrations are developed and tried) and the embedded database stay in one process,
    // which is what a debugger and a laptop want.
    return !config.sandbox && config.databaseUrl ? availableParallelism() : 1;
  }
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 256) {
    throw new ConfigError(`CAJA_PROCESSES must be a whole number between 1 and 256, got '${raw}'`);
  }
  const n = Number(raw);
  if (n > 1 && !config.databaseUrl) {
    throw new ConfigError(`CAJA_PROCESSES=${n} needs DATABASE_URL: the embedded database (PGlite) runs inside one process and cannot be shared`);
  }
  return n;
}
