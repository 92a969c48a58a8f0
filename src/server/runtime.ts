// Opens everything a process needs from a Config: the store (migrated), the secret box, the app.
import { type LoggerOptions, pino } from 'pino';
import type { Config } from '../config/config.ts';
import type { AppContext } from '../config/context.ts';
import { openDb } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import { secretBox, setPasswordCost } from '../domain/secrets.ts';
import { bindCredentialSecrets } from '../merchants/merchants.ts';
import { createMetrics } from '../ops/metrics.ts';
import { Caches } from '../cache/ttl-cache.ts';
import { requestSerializer } from '../http/log-redaction.ts';

/** Page tokens in URLs are redacted too (src/http/log-redaction.ts). */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: ['req.headers.authorization', 'req.headers["payload-signature"]', 'req.body', 'res.body'],
    serializers: { req: requestSerializer },
  };
}

/** `memory` keeps an embedded database in memory, started from `initialData` when given (openPglite). */
export async function openContext(config: Config, opts: { memory?: boolean; initialData?: Blob } = {}): Promise<AppContext> {
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, memory: opts.memory, initialData: opts.initialData, timeouts: config.database });
  await migrate(db);
  await bindCredentialSecrets(db, secretBox(config.masterKey));
  setPasswordCost(config.passwordHashCost);
  // Credentials travel in headers and bodies; neither is logged, and these paths are redacted
  // should a future log line include them.
  const log = pino(loggerOptions(config.logLevel));
  return { config, db, box: secretBox(config.masterKey), now: () => new Date(), log, metrics: createMetrics(), cache: new Caches(config.cacheSeconds * 1000) };
}
