// The panel's gate, which every signed-in page and action passes (panelRoute): the session cookie
// (HttpOnly, SameSite=Strict, Secure in production) must name a live session, the role must hold
// the page's permission, and every POST must carry the session's CSRF token and, when the browser
// sends one, our own Origin. Pages are never framed (CSP frame-ancestors 'none', X-Frame-Options
// DENY) nor cached. Also here: the language and sign-in cookies, and the scope's error page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../config/context.ts';
import { pageDepositError } from '../../http/errors.ts';
import { DepositError } from '../../deposits/errors.ts';
import { CHOICE_MINUTES, loadSession, type Session } from '../services/auth.ts';
import { csrfMatches, SESSION_COOKIE_SECONDS } from '../../backoffice/sessions.ts';
import { setBackofficeErrorPage } from '../../web/backoffice-errors.ts';
import { type Action, can } from '../services/roles.ts';
import type { Lang } from '../../web/i18n.ts';
import { newNonce, renderPage, sendHtml } from '../../web/layout.ts';
import { pageLang, readCookies, sameOrigin as sameOriginOf, setSessionCookie } from '../../web/session-cookies.ts';
import { panelStrings } from '../views/i18n.ts';
import * as V from '../views/pages.ts';

export const COOKIE = 'caja_panel';
const LANG_COOKIE = 'caja_panel_lang';
export const CHOICE_COOKIE = 'caja_panel_choice';

export type Query = Record<string, string | undefined>;
export type Body = Record<string, string | undefined>;

/** The request's cookies (shared with the operator console: src/web/session-cookies.ts). */
export const cookies = readCookies;

/** What a signed-in handler is given. */
export interface Ctx {
  s: Session;
  f: V.Frame;
  lang: Lang;
  request: FastifyRequest;
  reply: FastifyReply;
  query: Query;
  body: Body;
}
/** What a signed-in handler answers: a page, a redirect (303), or a CSV download. */
export type Result = V.Page | { redirect: string } | { csv: Readable; filename: string };

/** What every area's routes share (./register.ts hands it to each). */
export type PanelGate = ReturnType<typeof panelGate>;

/**
 * Installs the panel's error page in its scope and returns the gate: the language, the cookies,
 * the origin check and panelRoute, through which every signed-in page and action passes.
 */
export function panelGate(app: FastifyInstance, ctx: AppContext) {
  const env = ctx.config.env;
  const staging = ctx.config.sandbox;

  // The back-office error page (src/web/backoffice-errors.ts): a 503 with Retry-After on a
  // database outage, a 4xx page in the person's language for bad input, never a 500 for it. A
  // deposit service's refusal answers from the pages' table.
  setBackofficeErrorPage(app, {
    face: 'panel',
    statusOf: (err) => (err instanceof DepositError ? pageDepositError(err).status : undefined),
    page: (request, reply, e) => {
      const b = bareOf(request, reply);
      const page =
        e.kind === 'not_found' ? V.messagePage(b, b.t.notFoundTitle, b.t.notFound, 404)
        : e.kind === 'bad_request' ? V.messagePage(b, b.t.errorTitle, b.t.badRequest.replace('{reason}', e.reason), e.status)
        : V.messagePage(b, b.t.errorTitle, b.t.error, e.status);
      return render(reply, b.lang, page);
    },
  });

  const langOf = (request: FastifyRequest, reply: FastifyReply): Lang => pageLang(ctx, request, reply, LANG_COOKIE, '/panel');

  const bareOf = (request: FastifyRequest, reply: FastifyReply): V.BareFrame => {
    const lang = langOf(request, reply);
    return { t: panelStrings(lang), lang, env, here: request.url };
  };

  function render(reply: FastifyReply, lang: Lang, page: V.Page): FastifyReply {
    const nonce = newNonce();
    const html = renderPage({ lang, title: page.title, body: page.body, nonce, css: V.PANEL_CSS, bodyClass: 'panel', header: page.header });
    return sendHtml(reply, html, { status: page.status, nonce, formAction: ["'self'"] });
  }

  function choiceCookie(reply: FastifyReply, ticket: string | null): void {
    const attrs = `Path=/panel/login; HttpOnly; SameSite=Strict${ctx.config.relaxedChecks ? '' : '; Secure'}`;
    reply.header('set-cookie', ticket ? `${CHOICE_COOKIE}=${ticket}; ${attrs}; Max-Age=${CHOICE_MINUTES * 60}` : `${CHOICE_COOKIE}=; ${attrs}; Max-Age=0`);
  }

  function sessionCookie(reply: FastifyReply, token: string | null): void {
    setSessionCookie(ctx, reply, COOKIE, '/panel', token, SESSION_COOKIE_SECONDS);
  }

  /** Our own origin: the public address, and the address this request was made to. */
  const sameOrigin = (request: FastifyRequest): boolean => sameOriginOf(ctx, request);

  /** The gate every signed-in page and action passes. */
  function panelRoute(perm: Action, handler: (c: Ctx) => Promise<Result>, o: { upload?: boolean } = {}) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const bare = bareOf(request, reply);
      const s = await loadSession(ctx, cookies(request)[COOKIE], request.ip);
      if (!s) {
        if (request.method !== 'GET') sessionCookie(reply, null);
        return reply.redirect(`/panel/login?next=${encodeURIComponent(request.method === 'GET' ? request.url : '/panel')}`, 303);
      }
      if (s.mfaPending) return reply.redirect('/panel/login/code', 303);
      const f: V.Frame = { ...bare, email: s.actor.email, role: s.actor.role, merchantName: s.merchantName, csrf: s.csrf };
      if (!can(s.actor.role, perm)) {
        return render(reply, bare.lang, V.messagePage(bare, bare.t.forbiddenTitle, bare.t.forbidden.replace('{role}', bare.t[`role${s.actor.role}`]), 403, f));
      }
      const body = (request.body && typeof request.body === 'object' && !Buffer.isBuffer(request.body) ? request.body : {}) as Body;
      // The upload route reads its token from the multipart body itself; everywhere else a
      // multipart post has no readable token and is refused like any other.
      if (request.method === 'POST' && !o.upload) {
        if (!sameOrigin(request) || !csrfMatches(s, body.csrf)) return render(reply, bare.lang, V.messagePage(bare, bare.t.csrfTitle, bare.t.csrf, 403, f));
      }
      const result = await handler({ s, f, lang: bare.lang, request, reply, query: (request.query ?? {}) as Query, body });
      if ('redirect' in result) return reply.redirect(result.redirect, 303);
      if ('csv' in result) {
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${result.filename}"`)
          .header('cache-control', 'no-store')
          .header('x-content-type-options', 'nosniff')
          .send(result.csv);
      }
      return render(reply, bare.lang, result as V.Page);
    };
  }

  const notFound = (c: Ctx): V.Page => V.messagePage(c.f, c.f.t.notFoundTitle, c.f.t.notFound, 404, c.f);
  const forbidden = (c: Ctx): V.Page => V.messagePage(c.f, c.f.t.forbiddenTitle, c.f.t.forbidden.replace('{role}', c.f.t[`role${c.s.actor.role}`]), 403, c.f);

  return { env, staging, bareOf, render, choiceCookie, sessionCookie, sameOrigin, route: panelRoute, notFound, forbidden };
}
