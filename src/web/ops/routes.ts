// The operator console at /ops: server-rendered pages for the people who run caja. Every
// handler loads a view model through the services (src/operators/*, src/rates/*, merchants,
// ledger, connectors) and renders a template from views.ts; no SQL and no business rule here.
//
// Requests pass one gate (opsRoute): the session cookie (HttpOnly, SameSite=Strict, Secure in
// production, path /ops) must name a live session whose TOTP code was given, the operator's role
// must hold the action (src/operators/roles.ts), and every POST must carry the session's CSRF
// token and, when the browser sends one, our own Origin. Pages are never framed nor cached.//
// The pages themselves live one module per area in src/web/ops/areas/ (sign-in, merchants,
// approvals, rates, reconciliation, operators) and beside this file (fees, settlements, connector
// settings, statements, operators' lifecycle); each receives the gate as an OpsKit.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { loadSession } from '../../operators/auth.ts';
import { canOps, type OpsAction } from '../../operators/roles.ts';
import { csrfMatches, SESSION_COOKIE_SECONDS } from '../../backoffice/sessions.ts';
import { setBackofficeErrorPage } from '../backoffice-errors.ts';
import type { Lang } from '../i18n.ts';
import { newNonce, renderPage, sendHtml } from '../layout.ts';
import { pageLang, readCookies, sameOrigin, setSessionCookie } from '../session-cookies.ts';
import { opsStrings } from './i18n.ts';
import * as V from './views.ts';
import { registerOpsConnectorSettings } from './connector-settings.ts';
import { registerOpsFees } from './fees.ts';
import { registerOpsSettlements } from './settlements.ts';
import { registerOpsDeposits } from './deposits.ts';
import { registerOpsStatements } from './statements.ts';
import { registerOperatorLifecycle } from './lifecycle-routes.ts';
import { registerOpsSignIn } from './areas/sign-in.ts';
import { registerOpsMerchants } from './areas/merchants.ts';
import { registerOpsApprovals } from './areas/approvals.ts';
import { registerOpsRates } from './areas/rates.ts';
import { registerOpsReconciliation } from './areas/reconciliation.ts';
import { registerOpsOperators } from './areas/operators.ts';
import { OPS_COOKIE as COOKIE, OPS_LANG_COOKIE as LANG_COOKIE } from './areas/common.ts';

import type { Body, Ctx, OpsKit, OpsRouteHandler, Query, Result } from './route-types.ts';

export type { Ctx, OpsKit, OpsRouteHandler, OpsRouteOf, Result } from './route-types.ts';

export function registerOps(app: FastifyInstance, ctx: AppContext): void {
  const env = ctx.config.env;
  const bareOf = (request: FastifyRequest, reply: FastifyReply): V.BareFrame => {
    const lang = pageLang(ctx, request, reply, LANG_COOKIE, '/ops');
    return { t: opsStrings(lang), lang, env, here: request.url };
  };

  function render(reply: FastifyReply, lang: Lang, page: V.Page): FastifyReply {
    const nonce = newNonce();
    const page_ = renderPage({ lang, title: page.title, body: page.body, nonce, css: V.OPS_CSS, bodyClass: 'panel', header: page.header });
    return sendHtml(reply, page_, { status: page.status, nonce, formAction: ["'self'"] });
  }

  const sessionCookie = (reply: FastifyReply, token: string | null) => setSessionCookie(ctx, reply, COOKIE, '/ops', token, SESSION_COOKIE_SECONDS);

  // The back-office error page (src/web/backoffice-errors.ts): a 503 with Retry-After on a
  // database outage, a 4xx page in the operator's language for bad input, never a 500 for it.
  setBackofficeErrorPage(app, {
    face: 'ops',
    page: (request, reply, e) => {
      const b = bareOf(request, reply);
      const page =
        e.kind === 'unavailable' ? V.messagePage(b, b.t.errorTitle, b.t.unavailable, e.status)
        : e.kind === 'not_found' ? V.messagePage(b, b.t.notFoundTitle, b.t.notFound, 404)
        : e.kind === 'bad_request' ? V.messagePage(b, b.t.errorTitle, b.t.badRequest.replace('{reason}', e.reason), e.status)
        : V.messagePage(b, b.t.errorTitle, b.t.error, 500);
      return render(reply, b.lang, page);
    },
  });

  /** The gate every signed-in page and action passes. */
  function opsRoute(action: OpsAction, handler: (c: Ctx) => Promise<Result>, o: { upload?: boolean } = {}): OpsRouteHandler {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const bare = bareOf(request, reply);
      // An upload's body is still unread (a stream) when it is refused here: the connection is
      // closed rather than the rest of it read.
      if (o.upload) reply.header('connection', 'close');
      const s = await loadSession(ctx, readCookies(request)[COOKIE], request.ip);
      if (!s) {
        if (request.method !== 'GET') sessionCookie(reply, null);
        return reply.redirect('/ops/login', 303);
      }
      if (s.mfaPending) return reply.redirect('/ops/login/code', 303);
      const f: V.Frame = { ...bare, email: s.operator.email, role: s.operator.role, operatorId: s.operator.id, csrf: s.csrf };
      if (!canOps(s.operator.role, action)) {
        return render(reply, bare.lang, V.messagePage(bare, bare.t.forbiddenTitle, bare.t.forbidden.replace('{role}', bare.t[`role${s.operator.role}`]), 403, f));
      }
      const body = (!o.upload && request.body && typeof request.body === 'object' && !Buffer.isBuffer(request.body) ? request.body : {}) as Body;
      // An upload (multipart) carries its token inside the body: the Origin is checked here, before
      // the body is read; the token by its handler once it has read the form.
      if (request.method === 'POST' && (!sameOrigin(ctx, request) || (!o.upload && !csrfMatches(s, body.csrf)))) {
        return render(reply, bare.lang, V.messagePage(bare, bare.t.csrfTitle, bare.t.csrf, 403, f));
      }
      const result = await handler({ s, f, request, reply, query: (request.query ?? {}) as Query, body, params: (request.params ?? {}) as Record<string, string> });
      if ('redirect' in result) return reply.redirect(result.redirect, 303);
      return render(reply, bare.lang, result);
    };
  }

  const notFound = (c: Ctx): V.Page => V.messagePage(c.f, c.f.t.notFoundTitle, c.f.t.notFound, 404, c.f);
  const kit: OpsKit = { opsRoute, bareOf, render, sessionCookie, notFound };

  // ------------------------------------------------------------------ areas, one module each

  registerOpsSignIn(app, ctx, kit);
  registerOpsMerchants(app, ctx, kit);
  registerOpsApprovals(app, ctx, kit);
  registerOpsRates(app, ctx, kit);
  const { reconView } = registerOpsReconciliation(app, ctx, kit);
  const { operatorsView } = registerOpsOperators(app, ctx, kit);
  registerOpsFees(app, ctx, opsRoute);
  registerOpsSettlements(app, ctx, opsRoute);
  registerOpsDeposits(app, ctx, opsRoute);
  registerOpsConnectorSettings(app, ctx, opsRoute);
  registerOpsStatements(app, ctx, opsRoute, reconView);
  registerOperatorLifecycle(app, ctx, { opsRoute, operatorsView });
}
