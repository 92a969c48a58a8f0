// What request handlers and workers share: configuration, the store and the secret box.
import type { Config } from './config.ts';
import type { Db } from '../db/db.ts';
import type { Logger } from 'pino';
import type { SecretBox } from '../domain/secrets.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Caches } from '../cache/ttl-cache.ts';

export interface AppContext {
  config: Config;
  db: Db;
  box: SecretBox;
  /** Current time; tests may replace it. */
  now: () => Date;
  /** The process's JSON logger, shared by the HTTP server (request logs) and the workers. */
  log: Logger;
  metrics: Metrics;
  /** Rows every request reads and operators rarely change (src/cache/ttl-cache.ts). */
  cache: Caches;
}
