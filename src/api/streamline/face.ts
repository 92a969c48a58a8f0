// The streamline (form-encoded) face. Business errors answer HTTP 200 with the endpoint's own
// error fields, as the provider family always did: integrations parse the body, and some HTTP
// clients (PHP's file_get_contents, for one) throw away the body of a 4xx.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, unavailableAnswer, v3DepositError } from '../../http/errors.ts';
import { DepositError } from '../../deposits/errors.ts';
import { StreamlineAuthError } from '../../auth/streamline.ts';
import { type ErrorShape, errorFields, type Fields, pickFormat, renderRecord, type Rendered, StreamlineError, type StreamlineFormat } from './format.ts';

export interface StreamlineRouteConfig {
  defaultFormat: StreamlineFormat;
  errorShape: ErrorShape;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    streamline?: StreamlineRouteConfig;
  }
}

export type Form = Record<string, string>;

export function formatOf(request: FastifyRequest): StreamlineFormat {
  const cfg = request.routeOptions.config.streamline;
  const body = request.body as Form | undefined;
  return pickFormat(body && typeof body === 'object' ? body.type : undefined, cfg?.defaultFormat ?? 'json');
}

export function send(reply: FastifyReply, rendered: Rendered): FastifyReply {
  return reply.status(200).header('content-type', rendered.contentType).send(rendered.body);
}

export function sendRecord(request: FastifyRequest, reply: FastifyReply, fields: Fields, root = 'response'): FastifyReply {
  return send(reply, renderRecord(fields, formatOf(request), root));
}

export function toStreamlineError(err: FastifyError | Error): StreamlineError | null {
  if (err instanceof StreamlineError) return err;
  // The credentials check: 301 for empty credentials, 401 for credentials no set takes.
  if (err instanceof StreamlineAuthError) return new StreamlineError(err.kind === 'missing' ? 301 : 401, err.message);
  // A deposit failure the route did not answer in its own codes reads as the v3 error would.
  if (err instanceof DepositError) err = v3DepositError(err);
  // The shared body parsers and id checks raise the v3 error type; here it is invalid input.
  if (err instanceof ApiError && err.httpStatus < 500) return new StreamlineError(300, err.details?.length ? `Invalid parameter: ${err.details.join('; ')}` : err.message);
  const fe = err as FastifyError;
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new StreamlineError(300, 'Content-Type must be application/x-www-form-urlencoded');
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new StreamlineError(300, 'Request body is too large');
  if (fe.validation) return new StreamlineError(300, `Invalid parameters: ${fe.message}`);
  if (fe.statusCode && fe.statusCode < 500) return new StreamlineError(300, fe.message);
  return null;
}

/**
 * A form Content-Type. Parameters may follow a `;` or, as the provider family's own C# sample
 * sends it (`application/x-www-form-urlencoded, charset=utf-8`), a `,`.
 */
export function isFormContentType(header: unknown): boolean {
  return typeof header === 'string' && /^\s*application\/x-www-form-urlencoded\s*(?:$|[;,])/i.test(header);
}

/** Scope setup: form bodies only, errors in the endpoint's format. */
export function useStreamlineFace(app: FastifyInstance): void {
  // The comma form is not a valid media type, so the body parsers would answer 415 before any
  // hook of ours ran; it is read as the plain form type (bodies are decoded as UTF-8 anyway).
  app.addHook('onRequest', async (request) => {
    const header = request.raw.headers['content-type'];
    if (typeof header === 'string' && header.includes(',') && isFormContentType(header)) {
      request.raw.headers['content-type'] = 'application/x-www-form-urlencoded';
    }
  });
  app.addHook('preValidation', async (request) => {
    if (!isFormContentType(request.headers['content-type'])) {
      throw new StreamlineError(300, 'Content-Type must be application/x-www-form-urlencoded');
    }
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const shape = request.routeOptions.config.streamline?.errorShape ?? 'standard';
    const body = request.body as Form | undefined;
    const version11 = body?.x_version !== undefined && Number(body.x_version) >= 1.1;
    const unavailable = unavailableAnswer(err);
    if (unavailable) {
      request.log.warn({ err }, 'database unavailable');
      const fields = errorFields(new StreamlineError(unavailable.streamlineCode, unavailable.message), shape, shape !== 'invoice' || version11);
      const rendered = renderRecord(fields, formatOf(request), 'response');
      return reply.status(unavailable.status).header('retry-after', String(unavailable.retryAfterSeconds)).header('content-type', rendered.contentType).send(rendered.body);
    }
    let e = toStreamlineError(err);
    if (!e) {
      request.log.error({ err }, 'unhandled error');
      e = new StreamlineError(500, 'Internal error');
    }
    return send(reply, renderRecord(errorFields(e, shape, shape !== 'invoice' || version11), formatOf(request), 'response'));
  });
}

/** A required field: absent or blank is 301 (empty parameter). */
export function required(form: Form, name: string): string {
  const v = form[name];
  if (v === undefined || v.trim() === '') throw new StreamlineError(301, `Empty parameter: ${name}`);
  return v;
}

/** An optional field with a maximum length (300 when longer). */
export function optional(form: Form, name: string, max: number): string {
  const v = form[name] ?? '';
  if ([...v].length > max) throw new StreamlineError(300, `Invalid parameter: ${name} must be at most ${max} characters`);
  return v;
}
