// The one parser of path ids and paging values, for every route. PostgreSQL refuses what does
// not fit its column (`2147483648` in an integer, `Infinity` in a bigint) with an error, and
// Ajv's coercion turns "Infinity" and "1e309" into the number Infinity, which passes an
// `integer` schema; so these values are checked here, on the text received, before any schema
// or query sees them.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BIGINT_ID_MAX, INT_ID_MAX, parseId } from '../domain/ids.ts';
import { v3Errors } from './errors.ts';

// The bounds and the parser themselves are domain/ids.ts, which services use too.
export { BIGINT_ID_MAX, INT_ID_MAX, parseId };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The column kind behind the route's `:id`; `int` unless said otherwise. */
    pathId?: 'int' | 'bigint';
  }
}

/** The query parameters that page through lists: limits and cursors. */
const PAGING = ['limit', 'before', 'after', 'starting_after'] as const;

/**
 * Checked for every route before its schema: a path id that is not one of ours is not found
 * (208); a paging value that is not a non-negative integer in range is a validation error (201)
 * naming it. Each route's own schema still sets its range (limit 1..100, say).
 */
export function checkIdsAndPaging(request: FastifyRequest): void {
  const params = request.params as Record<string, unknown> | undefined;
  if (params && 'id' in params) {
    const max = request.routeOptions.config.pathId === 'bigint' ? BIGINT_ID_MAX : INT_ID_MAX;
    if (parseId(params.id, max) === null) throw v3Errors.notFound();
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  const bad = PAGING.filter((name) => {
    const v = query[name];
    if (v === undefined) return false;
    return !(typeof v === 'string' && /^\d{1,16}$/.test(v) && Number(v) <= BIGINT_ID_MAX);
  });
  if (bad.length) throw v3Errors.validation(bad.map((name) => `${name}: must be a non-negative integer of at most 16 digits`));
}

export function registerIdAndPagingCheck(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => checkIdsAndPaging(request));
}
