// Body parsers that keep the raw bytes (signatures are verified over exactly what was received)
// and parse JSON without losing digits: a number that a double cannot hold exactly stays as its
// original text, so an 18-digit amount sent as a JSON number keeps every digit.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parse as parseLossless } from 'lossless-json';
import { type ApiError, v3Errors } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
  }
}

/** Whether a JSON number's text is what JavaScript writes back for its double (`10.5`, not `10.50`). */
const writesBack = (text: string): boolean => String(Number(text)) === text;

function parseNumber(text: string): number | string {
  return writesBack(text) ? Number(text) : text;
}

/**
 * Explicit nulls mean "absent" (DESIGN.md Compatibility), so they are dropped from objects. A
 * value without a null member anywhere is returned as it is (nothing copied); an object that
 * has one is copied without it.
 */
export function dropNulls(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      const w = dropNulls(v);
      if (w !== v) (out ??= value.slice())[i] = w;
    }
    return out ?? value;
  }
  const members = Object.entries(value);
  let changed = false;
  for (const m of members) {
    if (m[1] === null) changed = true;
    else {
      const w = dropNulls(m[1]);
      if (w !== m[1]) {
        m[1] = w;
        changed = true;
      }
    }
  }
  // fromEntries defines own properties, so a "__proto__" key stays data, never a prototype.
  return changed ? Object.fromEntries(members.filter((m) => m[1] !== null)) : value;
}

/** No request of ours nests deeper; beyond it a body is refused before any recursive walk. */
export const MAX_JSON_DEPTH = 64;

/** What a walk over JSON text finds outside its strings. */
interface JsonShape {
  /** The deepest nesting of arrays and objects. */
  depth: number;
  /** Object members: each ':' outside strings separates one key from its value. */
  members: number;
  /** Every number is written as JavaScript writes it back (`10.5`, not `10.50`, `1e2` or 18 digits). */
  plainNumbers: boolean;
}

function scanJson(text: string): JsonShape {
  let depth = 0;
  let max = 0;
  let members = 0;
  let plainNumbers = true;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x3a) members++;
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      // A number: its characters up to the next delimiter.
      let end = i + 1;
      for (; end < text.length; end++) {
        const d = text.charCodeAt(end);
        if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x2d || d === 0x2b || d === 0x65 || d === 0x45)) break;
      }
      if (plainNumbers) plainNumbers = writesBack(text.slice(i, end));
      i = end - 1;
    }
  }
  return { depth: max, members, plainNumbers };
}

/** The deepest nesting of arrays and objects in JSON text, counted outside strings. */
export function jsonDepth(text: string): number {
  return scanJson(text).depth;
}

/** Own members of every object in a JSON.parse result. */
function countMembers(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const v of value) n += countMembers(v);
    return n;
  }
  for (const k in value) n += 1 + countMembers((value as Record<string, unknown>)[k]);
  return n;
}

/**
 * JSON without losing digits: a number a double cannot write back as it was sent stays its text.
 * Most bodies have no such number (amounts come as strings or as plain numbers like 10.5) and no
 * key twice: those are read by the native JSON.parse, which gives the same value at a fraction of
 * the cost (a signed creation's body: 2.4 µs against 14 µs); any other body, and any body
 * JSON.parse refuses, goes through the lossless parser, whose errors are the ones answered.
 */
export function parseJsonLossless(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  const shape = scanJson(text);
  if (shape.depth > MAX_JSON_DEPTH) throw new Error(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  if (shape.plainNumbers) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    // A key given twice leaves fewer members than colons: the lossless parser decides (it
    // refuses two different values).
    if (parsed !== undefined && countMembers(parsed) === shape.members) return dropNulls(parsed);
  }
  return dropNulls(parseLossless(text, undefined, parseNumber));
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

function unstorableError(field: string): ApiError {
  return v3Errors.validation([`${field}: must not contain NUL characters or unpaired UTF-16 surrogates`], 'Invalid characters in the request body');
}

/**
 * Reads a request body streamed to a handler (a content-type parser that passes the stream on),
 * up to `limit` bytes: the bytes, or 'too_large' as soon as more arrive (the rest is left unread:
 * answer with `connection: close`). A route that takes a large body reads it only after its
 * checks (session, origin, role), so an unauthenticated post is answered without reading it.
 */
export function readBodyLimited(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onData = (chunk: Buffer | string) => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += b.length;
      if (size > limit) {
        cleanup();
        stream.pause();
        resolve('too_large');
      } else chunks.push(b);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(Object.assign(err, { statusCode: 400 }));
    };
    // The client went away before the end: a 4xx for the log, never a promise left waiting.
    const onClose = () => onError(new Error('the request body ended before its length'));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
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
      return done(v3Errors.invalidBody(`Malformed JSON body: ${(err as Error).message}`), undefined);
    }
    const bad = unstorableText(parsed);
    if (bad) return done(unstorableError(bad), undefined);
    done(null, parsed);
  });
  // The same rule for forms: a percent-encoded %00 decodes to NUL (malformed UTF-8 decodes to
  // U+FFFD, so no lone surrogate gets through a form).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req: FastifyRequest, body: Buffer, done) => {
    req.rawBody = body;
    const form = parseForm(body);
    const bad = unstorableText(form);
    if (bad) return done(unstorableError(bad), undefined);
    done(null, form);
  });
}
