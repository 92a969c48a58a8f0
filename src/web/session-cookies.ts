// What a signed-in area of server-rendered pages needs from HTTP, whoever signs in (the
// merchant panel's gate and the operator console's): the request's cookies, a
// session cookie set or cleared, our own origin for the forms' forgery check, and the page
// language from ?lang=, a cookie, or Accept-Language.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../config/context.ts';
import { acceptedLang, type Lang } from './i18n.ts';

export function readCookies(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) {
      try {
        out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        // A malformed cookie is ignored, as browsers do.
      }
    }
  }
  return out;
}

/** HttpOnly, SameSite=Strict, Secure unless checks are relaxed (staging); a null value clears it. */
export function setSessionCookie(ctx: AppContext, reply: FastifyReply, name: string, path: string, value: string | null, maxAgeSeconds: number): void {
  const attrs = `Path=${path}; HttpOnly; SameSite=Strict${ctx.config.relaxedChecks ? '' : '; Secure'}`;
  reply.header('set-cookie', value ? `${name}=${value}; ${attrs}; Max-Age=${maxAgeSeconds}` : `${name}=; ${attrs}; Max-Age=0`);
}

/** A post with an Origin header must come from our public address or the address it was sent to. */
export function sameOrigin(ctx: AppContext, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return new Set([new URL(ctx.config.publicBaseUrl).origin, `${request.protocol}://${request.headers.host}`]).has(origin);
}

/** The page language: ?lang= (remembered in `cookie` under `path`), the cookie, Accept-Language, English. */
export function pageLang(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, cookie: string, path: string): Lang {
  const asked = (request.query as Record<string, string | undefined> | undefined)?.lang;
  if (asked === 'en' || asked === 'es' || asked === 'pt') {
    reply.header('set-cookie', `${cookie}=${asked}; Path=${path}; Max-Age=31536000; SameSite=Lax${ctx.config.relaxedChecks ? '' : '; Secure'}`);
    return asked;
  }
  const c = readCookies(request)[cookie];
  if (c === 'en' || c === 'es' || c === 'pt') return c;
  return acceptedLang(request.headers['accept-language']) ?? 'en';
}
