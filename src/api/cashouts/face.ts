// The cashout face: errors as {code, message}, always with a non-2xx status.
import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, cashoutErrors, unavailableAnswer } from '../../http/errors.ts';

export function useCashoutErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let e: ApiError;
    // A body the shared parser refused (malformed JSON, unstorable text) is invalid params here.
    if (err instanceof ApiError && (err.code === 201 || err.code === 502)) {
      e = cashoutErrors.invalidParams(`Invalid params: ${err.details?.join('; ') ?? err.message}`);
    } else if (err instanceof ApiError) e = err;
    else if (unavailableAnswer(err)) e = cashoutErrors.databaseUnavailable();
    else if (err.validation) {
      e = cashoutErrors.invalidParams(`Invalid params: ${err.validation.map((v) => `${v.instancePath.replace(/^\//, '') || (v.params as any).missingProperty || 'body'} ${v.message}`).join('; ')}`);
    } else if (err.statusCode && err.statusCode < 500) e = cashoutErrors.refused(err.statusCode, err.message);
    else {
      request.log.error({ err }, 'unhandled error');
      e = cashoutErrors.internal();
    }
    if (e.retryAfterSeconds !== undefined) {
      request.log.warn({ err }, 'database unavailable');
      reply.header('retry-after', String(e.retryAfterSeconds));
    }
    // The v3-style codes a shared service may raise keep their number; the text becomes `message`.
    reply.status(e.httpStatus).send({ code: e.code, message: e.message });
  });
}

export const cashoutErrorSchema = {
  type: 'object',
  properties: { code: { type: 'integer' }, message: { type: 'string' } },
  required: ['code', 'message'],
} as const;
