// Signing in (password, the merchant chosen when a password opens several, the TOTP code) and out.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { chooseAccount, completeMfa, csrfMatches, loadSession, signIn, signOut, signOutEverywhere } from '../services/auth.ts';
import { CHOICE_COOKIE, COOKIE, cookies, type Body, type PanelGate, type Query } from './gate.ts';
import * as V from '../views/pages.ts';

/** A same-site path inside the panel to go back to after sign-in; anything else is the home page. */
function safeNext(next: string | undefined): string {
  return next && /^\/panel(\/[\w./?=&%-]*)?$/.test(next) && !next.includes('//') ? next : '/panel';
}

export function registerSignIn(app: FastifyInstance, ctx: AppContext, gate: PanelGate): void {
  const { route: panelRoute, bareOf, render, choiceCookie, sessionCookie, sameOrigin } = gate;

  app.get('/panel/login', async (request, reply) => {
    const b = bareOf(request, reply);
    const q = request.query as Query;
    const notice = q.out === '1' ? b.t.signedOut : undefined;
    return render(reply, b.lang, V.loginPage(b, { next: q.next, notice }));
  });

  app.post('/panel/login', async (request, reply) => {
    const b = bareOf(request, reply);
    const body = (request.body ?? {}) as Body;
    // A sign-in form posted from another site would sign the victim into the attacker's account.
    if (!sameOrigin(request)) return render(reply, b.lang, V.messagePage(b, b.t.csrfTitle, b.t.csrf, 403));
    const email = typeof body.email === 'string' ? body.email : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const r = await signIn(ctx, email, password, request.ip, request.headers['user-agent'] ?? null);
    if (r.ok === 'choose') {
      choiceCookie(reply, r.ticket);
      return render(reply, b.lang, V.choosePage(b, { options: r.options, next: body.next }));
    }
    if (!r.ok) {
      const error = r.reason === 'locked' ? b.t.locked.replace('{time}', `${r.until.toISOString().slice(11, 16)} UTC`) : b.t.badCredentials;
      return render(reply, b.lang, V.loginPage(b, { email, error, next: body.next, status: r.reason === 'locked' ? 429 : 401 }));
    }
    sessionCookie(reply, r.token);
    return reply.redirect(r.mfa ? '/panel/login/code' : safeNext(body.next), 303);
  });

  // The merchant picked after a password that opened several (the ticket cookie names which).
  app.post('/panel/login/choose', async (request, reply) => {
    const b = bareOf(request, reply);
    const body = (request.body ?? {}) as Body;
    if (!sameOrigin(request)) return render(reply, b.lang, V.messagePage(b, b.t.csrfTitle, b.t.csrf, 403));
    const r = await chooseAccount(ctx, cookies(request)[CHOICE_COOKIE], typeof body.account === 'string' ? body.account : '', request.ip, request.headers['user-agent'] ?? null);
    choiceCookie(reply, null);
    if (!r) return render(reply, b.lang, V.loginPage(b, { error: b.t.badCredentials, next: body.next, status: 401 }));
    sessionCookie(reply, r.token);
    return reply.redirect(r.mfa ? '/panel/login/code' : safeNext(body.next), 303);
  });

  app.get('/panel/login/code', async (request, reply) => {
    const b = bareOf(request, reply);
    const s = await loadSession(ctx, cookies(request)[COOKIE], request.ip);
    if (!s || !s.mfaPending) return reply.redirect(s ? '/panel' : '/panel/login', 303);
    return render(reply, b.lang, V.codePage(b, s.csrf, {}));
  });

  app.post('/panel/login/code', async (request, reply) => {
    const b = bareOf(request, reply);
    const body = (request.body ?? {}) as Body;
    const s = await loadSession(ctx, cookies(request)[COOKIE], request.ip);
    if (!s || !s.mfaPending) return reply.redirect('/panel/login', 303);
    if (!sameOrigin(request) || !csrfMatches(s, body.csrf)) return render(reply, b.lang, V.messagePage(b, b.t.csrfTitle, b.t.csrf, 403));
    const token = await completeMfa(ctx, s, typeof body.code === 'string' ? body.code : '', request.headers['user-agent'] ?? null);
    if (!token) return render(reply, b.lang, V.codePage(b, s.csrf, { error: b.t.badCode }));
    sessionCookie(reply, token);
    return reply.redirect('/panel', 303);
  });

  app.post('/panel/logout', panelRoute('view', async (c) => {
    await signOut(ctx, c.s);
    sessionCookie(c.reply, null);
    return { redirect: '/panel/login?out=1' };
  }));

  app.post('/panel/logout-everywhere', panelRoute('view', async (c) => {
    await signOutEverywhere(ctx, c.s);
    sessionCookie(c.reply, null);
    return { redirect: '/panel/login?out=1' };
  }));
}
