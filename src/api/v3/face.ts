// The v3/v5 JSON face: errors as {code, description, details?, type?} with a non-2xx status.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, v3DepositError, v3Errors, v3ReconciliationError, v3SharedError } from '../../http/errors.ts';
import { DepositError } from '../../deposits/errors.ts';
import { ReconciliationError } from '../../reconciliation/errors.ts';

export function toV3Error(err: FastifyError | ApiError | Error): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DepositError) return v3DepositError(err);
  if (err instanceof ReconciliationError) return v3ReconciliationError(err);
  const shared = v3SharedError(err);
  if (shared) return shared;
  const fe = err as FastifyError;
  if (fe.validation) {
    const details = fe.validation.map((v) => {
      const path = (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
      const missing = (v.params as { missingProperty?: string }).missingProperty;
      const field = missing ? (path ? `${path}.${missing}` : missing) : path || 'body';
      // Ajv writes a type union as "must be integer,string".
      const message = v.keyword === 'type' ? v.message?.replace(/,/g, ' or ') : v.message;
      return `${field}: ${missing ? 'is required' : message}`;
    });
    return v3Errors.validation(details);
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return v3Errors.unsupportedMediaType();
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return v3Errors.bodyTooLarge();
  if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') return v3Errors.invalidBody();
  if (fe.statusCode === 404) return v3Errors.notFound('Route not found');
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return v3Errors.refused(fe.statusCode, fe.message);
  return v3Errors.internal();
}

/**
 * JSON bodies only. The form parser the streamline face needs would otherwise turn a JSON body
 * sent as `application/x-www-form-urlencoded` (curl -d without -H) into "country: is required".
 */
export function requireJsonContentType(request: FastifyRequest): void {
  const header = request.headers['content-type'];
  if (header === undefined) return; // no body at all: the handler answers "Request body is empty"
  const type = header.split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw v3Errors.unsupportedMediaType();
}

export function v3ErrorBody(e: ApiError) {
  return { code: e.code, description: e.message, ...(e.details ? { details: e.details } : {}), ...(e.type ? { type: e.type } : {}) };
}

export function useV3Errors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const e = toV3Error(err);
    if (e.retryAfterSeconds !== undefined) {
      request.log.warn({ err }, 'database unavailable');
      reply.header('retry-after', String(e.retryAfterSeconds));
    } else if (err instanceof DepositError && err.kind === 'provider_unavailable') {
      // The provider not answering is a fact of the provider (the client retries), not a bug here.
      request.log.warn({ provider: err.facts.provider?.who, reason: err.facts.provider?.error.message ?? err.message, status: e.httpStatus, code: e.code }, 'payment provider unavailable');
    } else if (e.httpStatus >= 500) request.log.error({ err }, 'unhandled error');
    reply.status(e.httpStatus).send(v3ErrorBody(e));
  });
}

export const v3ErrorSchema = {
  type: 'object',
  properties: {
    code: { type: 'integer' },
    description: { type: 'string' },
    details: { type: 'array', items: { type: 'string' } },
    type: { type: 'string' },
  },
  required: ['code', 'description'],
} as const;
