// Two checks with two uses (docs/operations.md, Health):
//   GET /health        liveness: the process answers and reaches its database (SELECT 1). A load
//                      balancer in front of several instances should treat any answer, 200 or
//                      503, as alive (haproxy: `http-check expect rstatus ^(200|503)$`): during a
//                      failover every instance's database is away at once, and the instances'
//                      own 503s (in each API's error format, with Retry-After) are better than
//                      the balancer's.
//   GET /health/ready  readiness: the database accepts writes now (it is the primary, not a
//                      standby or a demoted node, and not read-only). 503 otherwise. For
//                      orchestrators and rolling upgrades: send traffic only where writes work.
// Each check is bounded by CAJA_HEALTH_TIMEOUT_MS: a database that holds packets makes the check
// answer 503 in that time, not hang.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../config/context.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/unavailable.ts';
import { VERSION } from '../config/version.ts';

const healthBody = { type: 'object', properties: { status: { type: 'string' }, database: { type: 'string' }, environment: { type: 'string' }, version: { type: 'string', description: 'The version of caja answering (package.json, CHANGELOG.md)' } } } as const;

class HealthTimeout extends Error {}

/** Runs check, failing with HealthTimeout after ms (the query itself ends by its own timeout). */
async function within<T>(ms: number, check: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([check(), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new HealthTimeout()), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the database takes writes: not in recovery (a standby) and not read-only. */
async function acceptsWrites(ctx: AppContext): Promise<boolean> {
  const { rows } = await ctx.db.query<{ standby: boolean; read_only: string }>(
    `SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS read_only`,
  );
  return rows[0]?.standby === false && rows[0].read_only === 'off';
}

export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  const timeoutMs = ctx.config.database.healthTimeoutMs;
  app.get(
    '/health',
    { schema: { tags: ['operations'], summary: 'Liveness and database check', response: { 200: healthBody, 503: healthBody } } },
    async (_req, reply) => {
      try {
        await within(timeoutMs, () => ctx.db.query('SELECT 1'));
        return { status: 'ok', database: ctx.db.kind, environment: ctx.config.env, version: VERSION };
      } catch (err) {
        return reply.status(503).send({ status: 'unavailable', database: err instanceof HealthTimeout ? 'timeout' : 'unreachable', environment: ctx.config.env, version: VERSION });
      }
    },
  );
  app.get(
    '/health/ready',
    { schema: { tags: ['operations'], summary: 'Readiness: the database accepts writes', response: { 200: healthBody, 503: healthBody } } },
    async (_req, reply) => {
      try {
        if (await within(timeoutMs, () => acceptsWrites(ctx))) return { status: 'ready', database: ctx.db.kind, environment: ctx.config.env, version: VERSION };
        return reply.status(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).send({ status: 'unavailable', database: 'read-only', environment: ctx.config.env, version: VERSION });
      } catch (err) {
        return reply.status(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).send({ status: 'unavailable', database: err instanceof HealthTimeout ? 'timeout' : 'unreachable', environment: ctx.config.env, version: VERSION });
      }
    },
  );
}
