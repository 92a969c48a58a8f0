// Starts a real caja server on a loopback port for a test file, on embedded PGlite and, when
// DATABASE_URL or TEST_DATABASE_URL is set, on a fresh PostgreSQL database of its own.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/config.ts';
import type { AppContext } from '../../src/config/context.ts';
import { buildApp } from '../../src/server/app.ts';
import { openContext } from '../../src/server/runtime.ts';
import { startWorkers, stopWorkers, type Worker } from '../../src/server/workers.ts';
import { createScratchDatabase, postgresUrl } from './databases.ts';
import { pgliteTemplate } from './pglite-template.ts';
import { pgTemplate } from './pg-template.ts';

export { postgresUrl };

export type Backend = 'pglite' | 'pg';


/** The backends every database test runs on. */
export function backends(): Backend[] {
  return postgresUrl() ? ['pglite', 'pg'] : ['pglite'];
}

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestServer {
  url: string;
  app: FastifyInstance;
  ctx: AppContext;
  backend: Backend;
  close(): Promise<void>;
}

export async function startTestServer(
  backend: Backend,
  env: Record<string, string> = {},
  opts: { workers?: boolean } = {},
): Promise<TestServer> {
  // A copy of the migrated template (test/helpers/pg-template.ts): the server's migrate() finds nothing to do.
  const database = backend === 'pg' ? await createScratchDatabase(postgresUrl()!, 'caja_test', await pgTemplate(postgresUrl()!)) : null;
  const config = loadConfig({
    CAJA_ENV: 'staging',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-test-')),
    CAJA_MASTER_KEY: randomBytes(32).toString('base64'),
    CAJA_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // scrypt at 2^10 (3 ms) rather than 2^14 (50 ms) in staging: tests create and sign in hundreds
    // of users. Production refuses a factor under 14, and its test servers keep the default.
    ...(env.CAJA_ENV === 'production' ? {} : { CAJA_PASSWORD_HASH_COST: '10' }),
    // Production serves the admin API, /metrics and the console on the public port only when the
    // operator says so; the tests drive them there, so a production test server says so unless
    // the test gives an admin port or its own setting (test/api/admin-port.test.ts).
    ...(env.CAJA_ENV === 'production' && !env.CAJA_ADMIN_PORT ? { CAJA_ADMIN_ON_PUBLIC_PORT: 'true' } : {}),
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...env,
  });
  const ctx = await openContext(config, { memory: true, initialData: database ? undefined : await pgliteTemplate() });
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  if (!env.PUBLIC_BASE_URL) ctx.config.publicBaseUrl = url;
  const workers: Worker[] = opts.workers ? startWorkers(ctx) : [];
  return {
    url,
    app,
    ctx,
    backend,
    async close() {
      await app.close();
      await stopWorkers(workers);
      await ctx.db.close();
      await database?.drop();
    },
  };
}

/** How many deposit insert batches the server has written so far (the caja_deposit_batch_size metric's count). */
export async function depositBatches(s: TestServer): Promise<number> {
  return (await s.ctx.metrics.depositBatchSize.get()).values.find((v) => v.metricName === 'caja_deposit_batch_size_count')?.value ?? 0;
}

/** How many deposit creations wait in the server's batchers for their statement (caja_deposit_batch_waiting). */
export async function depositsWaiting(s: TestServer): Promise<number> {
  return (await s.ctx.metrics.depositBatchWaiting.get()).values[0]?.value ?? 0;
}

/**
 * Drives group commit instead of timing it: holds the server's first deposit write at its door
 * (`insert`: the shared insert statement; `checked`: the transaction of a batch under a customer
 * limit) while the database itself stays free. `queued(n)` resolves once that write is held and n
 * more creations wait in the batcher behind it; `release()` lets the write go (and stops holding).
 * Whatever the machine's speed, the creations queued are then written by shared statements.
 */
export function holdFirstDepositWrite(s: TestServer, which: 'insert' | 'checked') {
  const db = s.ctx.db;
  const { query, tx } = db;
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let holding = false;
  if (which === 'insert') {
    db.query = (async (sql: string, params?: unknown[], opts?: { name?: string }) => {
      if (opts?.name === 'caja_deposit_insert' && !holding) {
        holding = true;
        await gate;
      }
      return query.call(db, sql, params, opts);
    }) as typeof query;
  } else {
    db.tx = (async (fn: Parameters<typeof tx>[0]) => {
      if (!holding) {
        holding = true;
        await gate;
      }
      return tx.call(db, fn);
    }) as typeof tx;
  }
  return {
    async queued(n: number, deadlineMs = 120_000): Promise<void> {
      const deadline = Date.now() + deadlineMs;
      while (!holding || (await depositsWaiting(s)) < n) {
        if (Date.now() > deadline) throw new Error(`deposit creations never queued: ${await depositsWaiting(s)} of ${n} (write held: ${holding})`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    release(): void {
      db.query = query;
      db.tx = tx;
      open();
    },
  };
}
