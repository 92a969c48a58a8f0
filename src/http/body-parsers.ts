// Body parsers that keep the raw bytes (signatures are verified over exactly what was received)
// and parse JSON without losing digits: a number that a double cannot hold exactly stays as its
// original text, so an 18-digit amount sent as a JSON number keeps every digit.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parse as parseLossless } from 'lossless-json';
import { ApiError } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
  }
}

function parseNumber(text: string): number | string {
  const n = Number(text);
  return String(n) === text ? n : text;
}

/** Explicit nulls mean "absent" (DESIGN.md Compatibility), so they are dropped from objects. */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value && typeof value === 'object') {
    // fromEntries defines own properties, so a "__proto__" key stays data, never a prototype.
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, dropNulls(v)]));
  }
  return value;
}

export function parseJsonLossless(raw: Buffer): unknown {
  return dropNulls(parseLossless(raw.toString('utf8'), undefined, parseNumber));
}

/** Form bodies decode as UTF-8 and tolerate raw spaces and raw UTF-8; the first value of a name wins. */
export function parseForm(raw: Buffer): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) if (!(k in out)) out[k] = v;
  return out;
}

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req: FastifyRequest, body: Buffer, done) => {
    req.rawBody = body;
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, parseJsonLossless(body));
    } catch (err) {
      done(new ApiError(400, 502, 'INVALID_REQUEST_BODY', `Malformed JSON body: ${(err as Error).message}`), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req: FastifyRequest, body: Buffer, done) => {
    req.rawBody = body;
    done(null, parseForm(body));
  });
}
