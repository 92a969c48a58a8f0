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

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorable = (s: string) => s.includes('\0') || LONE_SURROGATE.test(s);

/**
 * The path of the first string (key or value) that no text column can store: PostgreSQL refuses
 * NUL in text and jsonb, and an unpaired UTF-16 surrogate has no UTF-8 form. Null when clean.
 */
export function unstorableText(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return unstorable(value) ? path || 'body' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = unstorableText(value[i], `${path}[${i}]`);
      if (bad) return bad;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const key = path ? `${path}.${k}` : k;
      if (unstorable(k)) return key;
      const bad = unstorableText(v, key);
      if (bad) return bad;
    }
  }
  return null;
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
    let parsed: unknown;
    try {
      parsed = parseJsonLossless(body);
    } catch (err) {
      return done(new ApiError(400, 502, 'INVALID_REQUEST_BODY', `Malformed JSON body: ${(err as Error).message}`), undefined);
    }
    const bad = unstorableText(parsed);
    if (bad) return done(new ApiError(400, 201, 'BEAN_VALIDATION_ERROR', 'Invalid characters in the request body', [`${bad}: must not contain NUL characters or unpaired UTF-16 surrogates`]), undefined);
    done(null, parsed);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req: FastifyRequest, body: Buffer, done) => {
    req.rawBody = body;
    done(null, parseForm(body));
  });
}
