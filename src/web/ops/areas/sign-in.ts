// The console's sign-in (password, then the TOTP code), an enrolment link's page, sign-out: the
// pages before the gate (src/web/ops/routes.ts opsRoute) has a session to check.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../config/context.ts';
import { MAX_PASSWORD, PASSWORD_LENGTH } from '../../../operators/accounts.ts';
import { completeEnrolment, openEnrolment } from '../../../operators/enrolment.ts';
import { beginTotpEnrolment, completeMfa, loadSession, signIn, signOut } from '../../../operators/auth.ts';
import { csrfMatches } from '../../../backoffice/sessions.ts';
import { readCookies, sameOrigin } from '../../session-cookies.ts';
import { fillText } from '../../view-helpers.ts';
import * as V from '../views.ts';
import { enrolLinkPage, enrolPage, untilText } from '../lifecycle-views.ts';
import type { Body, OpsKit } from '../route-types.ts';
import { OPS_COOKIE as COOKIE, text } from './common.ts';

export function registerOpsSignIn(app: FastifyInstance, ctx: AppContext, kit: OpsKit): void {
  const { opsRoute, bareOf, render, sessionCookie } = kit;

  app.get('/ops/login', async (request, reply) => {
    const b = bareOf(request, reply);
    return render(reply, b.lang, V.loginPage(b, {}));
  });

  app.post('/ops/login', async (request, reply) => {
    const b = bareOf(request, reply);
    const body = (request.body ?? {}) as Body;
    // A sign-in form posted from another site would sign the victim into the attacker's account.
    if (!sameOrigin(ctx, request)) return render(reply, b.lang, V.messagePage(b, b.t.csrfTitle, b.t.csrf, 403));
    const email = text(body.email, 320);
    const r = await signIn(ctx, email, typeof body.password === 'string' ? body.password : '', request.ip, request.headers['user-agent'] ?? null);
    if (!r.ok) {
      const error = r.reason === 'locked' ? b.t.locked.replace('{until}', `${r.until.toISOString().slice(11, 16)} UTC`) : b.t.invalidLogin;
      return render(reply, b.lang, V.loginPage(b, { email, error, status: r.reason === 'locked' ? 429 : 401 }));
    }
    sessionCookie(reply, r.token);
    return reply.redirect('/ops/login/code', 303);
  });

  app.get('/ops/login/code', async (request, reply) => {
    const b = bareOf(request, reply);
    const s = await loadSession(ctx, readCookies(request)[COOKIE], request.ip);
    if (!s || !s.mfaPending) return reply.redirect(s ? '/ops' : '/ops/login', 303);
    // After an admin reset the authenticator, the code step enrols a new secret (shown once per opening).
    if (s.enrolTotp) return render(reply, b.lang, enrolPage(b, { csrf: s.csrf, secret: (await beginTotpEnrolment(ctx, s)) ?? undefined }));
    return render(reply, b.lang, V.codePage(b, { csrf: s.csrf }));
  });

  app.post('/ops/login/code', async (request, reply) => {
    const b = bareOf(request, reply);
    const body = (request.body ?? {}) as Body;
    const s = await loadSession(ctx, readCookies(request)[COOKIE], request.ip);
    if (!s || !s.mfaPending) return reply.redirect('/ops/login', 303);
    if (!sameOrigin(ctx, request) || !csrfMatches(s, body.csrf)) return render(reply, b.lang, V.messagePage(b, b.t.csrfTitle, b.t.csrf, 403));
    const token = await completeMfa(ctx, s, text(body.code, 20), request.headers['user-agent'] ?? null);
    if (!token && s.enrolTotp) return render(reply, b.lang, enrolPage(b, { csrf: s.csrf, error: b.t.enrolFailed, status: 401 }));
    if (!token) return render(reply, b.lang, V.codePage(b, { csrf: s.csrf, error: b.t.invalidCode, status: 401 }));
    sessionCookie(reply, token);
    return reply.redirect('/ops', 303);
  });

  // An enrolment link (src/operators/enrolment.ts): no session; the link's token is the credential
  // (its path is redacted from request logs). Each opening shows a new authenticator secret once.
  const enrolView = async (b: V.BareFrame, token: string, error?: string, status?: number) => {
    const o = await openEnrolment(ctx, token);
    if (!o.ok) return enrolLinkPage(b, { action: '', error: o.reason === 'expired' ? b.t.enrolLinkExpired : b.t.enrolLinkUnknown, status: o.reason === 'expired' ? 410 : 404 });
    const until = untilText(o.expiresAt);
    return enrolLinkPage(b, { action: `/ops/enrol/${token}`, opened: { email: o.operator.email, role: b.t[`role${o.operator.role}`], until, secret: o.secret, uri: o.uri }, error, status });
  };

  app.get('/ops/enrol/:token', async (request, reply) => {
    const b = bareOf(request, reply);
    return render(reply, b.lang, await enrolView(b, (request.params as { token: string }).token));
  });

  app.post('/ops/enrol/:token', async (request, reply) => {
    const b = bareOf(request, reply);
    if (!sameOrigin(ctx, request)) return render(reply, b.lang, V.messagePage(b, b.t.csrfTitle, b.t.csrf, 403));
    const token = (request.params as { token: string }).token;
    const body = (request.body ?? {}) as Body;
    const str = (k: string) => (typeof body[k] === 'string' ? body[k]! : '');
    const r = await completeEnrolment(ctx, token, str('password'), str('again'), text(body.code, 20));
    if (r.ok) return reply.redirect('/ops/login', 303);
    const t = b.t;
    if (r.reason === 'unknown' || r.reason === 'expired') return render(reply, b.lang, await enrolView(b, token));
    const [error, status] = ({
      mismatch: [t.passwordMismatch, 400],
      short: [fillText(t.passwordShort, { min: PASSWORD_LENGTH }), 400],
      long: [fillText(t.passwordLong, { max: MAX_PASSWORD }), 400],
      code: [t.enrolLinkCode, 401],
    } as const)[r.reason];
    return render(reply, b.lang, await enrolView(b, token, error, status));
  });

  app.post('/ops/logout', opsRoute('view', async (c) => {
    await signOut(ctx, c.s);
    sessionCookie(c.reply, null);
    return { redirect: '/ops/login' };
  }));

  app.get('/ops', opsRoute('view', async () => ({ redirect: '/ops/merchants' })));
}
