// The back-office error page, one for the merchant panel (/panel) and the operator console (/ops):
// - the database is unavailable (a failover): a 503 with Retry-After, "try again in a moment",
//   as every other face answers it;
// - bad input (an unparsable or oversized body, a bad id): the 4xx it is, with its reason;
// - anything else: a 500 page, logged, never the error's text.
// Each face renders the page in the person's language with its own strings and frame.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unavailableAnswer } from '../http/errors.ts';

export type BackofficeError =
  | { kind: 'unavailable'; status: 503 }
  | { kind: 'not_found'; status: 404 }
  | { kind: 'bad_request'; status: number; reason: string }
  | { kind: 'failed'; status: 500 };

type Thrown = { statusCode?: number; httpStatus?: number; message: string; details?: string[] };

/** What a thrown error is on a back-office page; `statusOf` adds the face's own refusals (a service error's status). */
export function backofficeErrorOf(err: Thrown, statusOf?: (err: unknown) => number | undefined): BackofficeError {
  if (unavailableAnswer(err)) return { kind: 'unavailable', status: 503 };
  const given = err.statusCode ?? err.httpStatus ?? statusOf?.(err);
  const status = given && given >= 400 && given < 500 ? given : 500;
  if (status === 404) return { kind: 'not_found', status };
  if (status === 500) return { kind: 'failed', status };
  return { kind: 'bad_request', status, reason: err.details?.join('; ') ?? err.message };
}

/** Installs the error page in the face's scope: `page` renders it. */
export function setBackofficeErrorPage(
  app: FastifyInstance,
  o: { face: string; statusOf?: (err: unknown) => number | undefined; page: (request: FastifyRequest, reply: FastifyReply, e: BackofficeError) => FastifyReply },
): void {
  app.setErrorHandler((err: Thrown, request, reply) => {
    const e = backofficeErrorOf(err, o.statusOf);
    if (e.kind === 'unavailable') {
      request.log.warn({ err }, 'database unavailable');
      reply.header('retry-after', String(unavailableAnswer(err)!.retryAfterSeconds));
    }
    if (e.kind === 'failed') request.log.error({ err }, `${o.face} page failed`);
    return o.page(request, reply, e);
  });
}
