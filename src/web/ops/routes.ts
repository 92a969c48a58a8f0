// The operator console at /ops: server-rendered pages for the people who run caja. Every
// handler loads a view model through the services (src/operators/*, src/rates/*, merchants,
// ledger, connectors) and renders a template from views.ts; no SQL and no business rule here.
//
// Requests pass one gate (opsRoute): the session cookie (HttpOnly, SameSite=Strict, Secure in
// production, path /ops) must name a live session whose TOTP code was given, the operator's role
// must hold the action (src/operators/roles.ts), and every POST must carry the session's CSRF
// token and, when the browser sends one, our own Origin. Pages are never framed nor cached.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { ISO_CURRENCIES } from '../../domain/countries.ts';
import { minorUnits } from '../../domain/currencies.ts';
import { parseId } from '../../domain/ids.ts';
import { fromDb, isPositive, parseAmount, toDb, toFixed, toPlainString } from '../../domain/money.ts';
import { checkCallbackUrl } from '../../domain/urls.ts';
import { listLimits } from '../../deposits/limits.ts';
import { parseLimitInput } from '../../domain/limit-input.ts';
import { setMerchantLimit } from '../../operators/limits.ts';
import { merchantBalances } from '../../ledger/ledger.ts';
import { allConnectorViews } from '../../connectors/store.ts';
import { stoppedOrders } from '../../cashouts/payouts.ts';
import {
  CREDENTIAL_SETS, type CredentialSet, createMerchant, credentialsView, getMerchant, MAX_ROTATION_GRACE_HOURS, rotateCredentials, rotationGraceHours, updateMerchant,
} from '../../merchants/merchants.ts';
import { createOperator, listOperators, MAX_PASSWORD, OperatorError, PASSWORD_LENGTH } from '../../operators/accounts.ts';
import { completeEnrolment, openEnrolment } from '../../operators/enrolment.ts';
import { ApprovalError, decide, heldCashouts, listApprovals, requestAdjustment, requestCashoutRelease } from '../../operators/approvals.ts';
import { listOpsAudit } from '../../operators/audit.ts';
import { actorOf, beginTotpEnrolment, completeMfa, loadSession, signIn, signOut } from '../../operators/auth.ts';
import { canOps, isOperatorRole, type OpsAction } from '../../operators/roles.ts';
import { searchMerchants } from '../../operators/search.ts';
import { createAdminToken, isTokenScope, listAdminTokens, revokeAdminToken, rotateAdminToken, TokenError } from '../../operators/tokens.ts';
import { csrfMatches, SESSION_COOKIE_SECONDS } from '../../backoffice/sessions.ts';
import { setBackofficeErrorPage } from '../backoffice-errors.ts';
import { parseMarkup } from '../../rates/markup.ts';
import { fetchRates, rateBoard, setMarkup } from '../../rates/service.ts';
import { setRatesOrRequest } from '../../operators/four-eyes.ts';
import { configuredSources } from '../../rates/sources.ts';
import { listExceptions, listImports, listMatches, matchesPerRule } from '../../reconciliation/service.ts';
import type { Lang } from '../i18n.ts';
import { newNonce, renderPage, sendHtml } from '../layout.ts';
import { pageLang, readCookies, sameOrigin, setSessionCookie } from '../session-cookies.ts';
import { opsStrings } from './i18n.ts';
import * as V from './views.ts';
import { registerOpsConnectorSettings } from './connector-settings.ts';
import { registerOpsFees } from './fees.ts';
import { registerOpsSettlements } from './settlements.ts';
import { registerOpsStatements, resolveFromConsole } from './statements.ts';
import { enrolLinkPage, enrolPage, untilText } from './lifecycle-views.ts';
import { fillText } from '../view-helpers.ts';
import { registerOperatorLifecycle } from './lifecycle-routes.ts';

const COOKIE = 'caja_ops';
const LANG_COOKIE = 'caja_ops_lang';
const AUDIT_PAGE = 50;

import type { Body, Ctx, OpsRouteHandler, Query, Result } from './route-types.ts';

export type { Ctx, OpsRouteHandler, OpsRouteOf, Result } from './route-types.ts';

const text = (v: string | undefined, max = 500) => (typeof v === 'string' ? v.trim().slice(0, max) : '');

export function registerOps(app: FastifyInstance, ctx: AppContext): void {
  const env = ctx.config.env;
  const sources = configuredSources(ctx.config);

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
  const idOf = (c: Ctx) => parseId(c.params.id);

  // ------------------------------------------------------------------ sign-in

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

  // ------------------------------------------------------------------ merchants

  app.get('/ops/merchants', opsRoute('view', async (c) => {
    const q = text(c.query.q, 200);
    return V.merchantsPage(c.f, { q, hits: await searchMerchants(ctx.db, q) });
  }));

  app.post('/ops/merchants', opsRoute('merchants.create', async (c) => {
    const name = text(c.body.name, 200);
    const urls = { notification_url: text(c.body.notification_url, 2000) || null, return_url: text(c.body.return_url, 2000) || null };
    const problems = [
      ...(name ? [] : [`${c.f.t.name}: required`]),
      ...Object.entries(urls).flatMap(([k, v]) => {
        const reason = v === null ? null : checkCallbackUrl(v, env);
        return reason ? [`${k} ${reason}`] : [];
      }),
    ];
    if (problems.length) return V.merchantsPage(c.f, { q: '', hits: await searchMerchants(ctx.db, ''), error: problems.join('; ') });
    const actor = actorOf(c.s);
    const { merchant, credentials } = await createMerchant(ctx.db, ctx.box, env, { name, ...urls }, (m) => ({
      ops: actor, action: 'merchant.created', merchantId: m.id, subject: `merchant:${m.id}`, detail: { name }, at: ctx.now(),
    }));
    return V.merchantsPage(c.f, { q: '', hits: await searchMerchants(ctx.db, String(merchant.id)), created: { id: merchant.id, credentials: credentialsView(merchant, credentials) } });
  }));

  async function merchantDetail(id: number): Promise<V.MerchantDetail | null> {
    const m = await getMerchant(ctx.db, id);
    if (!m) return null;
    const [balances, limits, connectors] = await Promise.all([merchantBalances(ctx.db, id), listLimits(ctx.db), allConnectorViews(ctx)]);
    return {
      id: m.id, name: m.name, environment: m.environment, notificationUrl: m.notification_url, returnUrl: m.return_url,
      settlementCurrency: m.settlement_currency, threshold: m.cashout_approval_usd === null ? null : toFixed(fromDb(m.cashout_approval_usd), 2),
      balances: balances.map((b) => ({ currency: b.currency, available: toDb(b.available), reserved: toDb(b.reserved) })),
      feeSchedule: m.fee_schedule,
      limits: limits.filter((l) => l.merchant_id === null || l.merchant_id === id).map((l) => ({
        country: l.country ?? '*', method: l.payment_method ?? '*', perTransaction: l.per_transaction ?? '—', daily: l.daily ?? '—', monthly: l.monthly ?? '—',
      })),
      connectors: connectors.map((x) => ({ name: x.name, methods: Object.keys(x.settings).join(', ') })),
      credentialSets: CREDENTIAL_SETS,
    };
  }

  app.get('/ops/merchants/:id', opsRoute('view', async (c) => {
    const id = idOf(c);
    const m = id === null ? null : await merchantDetail(id);
    if (!m) return notFound(c);
    return V.merchantPage(c.f, m, { notice: c.query.done === 'saved' ? c.f.t.saved : c.query.done === 'requested' ? c.f.t.requested : undefined });
  }));

  app.post('/ops/merchants/:id/settings', opsRoute('merchants.settings', async (c) => {
    const id = idOf(c);
    const m = id === null ? null : await merchantDetail(id);
    if (!m || id === null) return notFound(c);
    const problems: string[] = [];
    const name = text(c.body.name, 200);
    if (!name) problems.push(`${c.f.t.name}: required`);
    const urls: Record<string, string | null> = { notification_url: text(c.body.notification_url, 2000) || null, return_url: text(c.body.return_url, 2000) || null };
    for (const [k, v] of Object.entries(urls)) {
      const reason = v === null ? null : checkCallbackUrl(v, env);
      if (reason) problems.push(`${k} ${reason}`);
    }
    const thresholdText = text(c.body.cashout_approval_usd, 40);
    const threshold = thresholdText ? parseAmount(thresholdText, { maxDecimals: 2, maxIntegerDigits: 14, allowZero: true }) : null;
    if (threshold && !threshold.ok) problems.push(`${c.f.t.threshold}: ${threshold.reason}`);
    if (problems.length) return V.merchantPage(c.f, m, { error: problems.join('; ') });
    await updateMerchant(ctx.db, id, { name, notification_url: urls.notification_url, return_url: urls.return_url, cashout_approval_usd: threshold?.ok ? toDb(threshold.value) : null }, ctx.cache, {
      ops: actorOf(c.s), action: 'merchant.settings', merchantId: id, subject: `merchant:${id}`,
      detail: { name, ...urls, cashout_approval_usd: threshold?.ok ? toPlainString(threshold.value) : null }, at: ctx.now(),
    });
    return { redirect: `/ops/merchants/${id}?done=saved` };
  }));

  app.post('/ops/merchants/:id/limits', opsRoute('merchants.settings', async (c) => {
    const id = idOf(c);
    const m = id === null ? null : await merchantDetail(id);
    if (!m || id === null) return notFound(c);
    // An empty box is no ceiling, as an absent field is to PUT /admin/limits.
    const fields: Record<string, unknown> = { merchant_id: id };
    for (const k of ['country', 'payment_method', 'per_transaction', 'daily', 'monthly']) {
      const v = text(c.body[k], 40);
      if (v) fields[k] = v;
    }
    const input = parseLimitInput(fields);
    if (!input.ok) return V.merchantPage(c.f, m, { error: input.details.join('; ') });
    await setMerchantLimit(ctx, input.value, actorOf(c.s));
    return { redirect: `/ops/merchants/${id}?done=saved` };
  }));

  app.post('/ops/merchants/:id/rotate', opsRoute('merchants.rotate', async (c) => {
    const id = idOf(c);
    const set = c.body.set as CredentialSet;
    if (id === null || !CREDENTIAL_SETS.includes(set)) return notFound(c);
    const asked = Number(c.body.grace_hours);
    const grace = rotationGraceHours(set, c.body.grace_hours !== undefined && asked >= 0 && asked <= MAX_ROTATION_GRACE_HOURS ? asked : undefined);
    const rotated = await rotateCredentials(ctx.db, ctx.box, id, set, ctx.cache, {
      ops: actorOf(c.s), action: 'merchant.rotated', merchantId: id, subject: `merchant:${id}`, detail: { set, grace_hours: grace }, at: ctx.now(),
    }, grace);
    const m = await merchantDetail(id);
    if (!rotated || !m) return notFound(c);
    return V.merchantPage(c.f, m, { rotated: { set, credentials: credentialsView(rotated.merchant, rotated.credentials), previousValidUntil: rotated.previousValidUntil } });
  }));

  app.post('/ops/merchants/:id/adjustments', opsRoute('money.request', async (c) => {
    const id = idOf(c);
    const m = id === null ? null : await merchantDetail(id);
    if (!m || id === null) return notFound(c);
    const direction = c.body.direction === 'debit' ? 'debit' : c.body.direction === 'credit' ? 'credit' : null;
    const currency = text(c.body.currency, 3).toUpperCase();
    // The currency's own decimals, as the admin API's adjustments (a CLP amount has none).
    const amount = parseAmount(text(c.body.amount, 40), { maxDecimals: ISO_CURRENCIES.has(currency) ? minorUnits(currency) : 2, maxIntegerDigits: 14 });
    const reason = text(c.body.reason, 500);
    const problems = [
      ...(direction ? [] : [`${c.f.t.direction}: credit or debit`]),
      ...(ISO_CURRENCIES.has(currency) ? [] : [`${c.f.t.currency}: not an ISO 4217 currency`]),
      ...(amount.ok ? [] : [`${c.f.t.amount}: ${amount.reason}`]),
      ...(reason ? [] : [`${c.f.t.reason}: required`]),
    ];
    if (problems.length || !amount.ok || !direction) return V.merchantPage(c.f, m, { error: problems.join('; ') });
    await requestAdjustment(ctx, actorOf(c.s), id, { direction, amount: amount.value, currency, reason });
    return { redirect: `/ops/merchants/${id}?done=requested` };
  }));

  // ------------------------------------------------------------------ approvals (four eyes)

  const approvalsView = async (c: Ctx, o: { notice?: string; error?: string } = {}) => {
    const [held, open, decided] = await Promise.all([heldCashouts(ctx.db), listApprovals(ctx.db, { status: 'pending' }), listApprovals(ctx.db, { status: 'decided', limit: 50 })]);
    return V.approvalsPage(c.f, { held, open, decided, ...o });
  };
  const approvalFailure = async (c: Ctx, err: unknown) => {
    if (!(err instanceof ApprovalError)) throw err;
    const page = await approvalsView(c, { error: err.message });
    return { ...page, status: err.kind === 'not_found' ? 404 : 409 };
  };

  app.get('/ops/approvals', opsRoute('view', async (c) => approvalsView(c, {
    notice: c.query.done === 'approve' ? c.f.t.approvedNotice : c.query.done === 'reject' ? c.f.t.rejectedNotice : c.query.done === 'requested' ? c.f.t.requested : undefined,
  })));

  app.post('/ops/approvals/cashouts/:id/request', opsRoute('money.request', async (c) => {
    const id = idOf(c);
    if (id === null) return notFound(c);
    try {
      await requestCashoutRelease(ctx, actorOf(c.s), id, text(c.body.note, 500));
      return { redirect: '/ops/approvals?done=requested' };
    } catch (err) {
      return approvalFailure(c, err);
    }
  }));

  for (const decision of ['approve', 'reject'] as const) {
    app.post(`/ops/approvals/:id/${decision}`, opsRoute('money.approve', async (c) => {
      const id = idOf(c);
      if (id === null) return notFound(c);
      try {
        await decide(ctx, actorOf(c.s), id, decision);
        return { redirect: `/ops/approvals?done=${decision}` };
      } catch (err) {
        return approvalFailure(c, err);
      }
    }));
  }

  // ------------------------------------------------------------------ exchange rates

  const ratesView = async (c: Ctx, o: { notice?: string; error?: string; status?: number } = {}) => {
    const b = await rateBoard(ctx, sources);
    return { ...V.ratesPage(c.f, { rates: b.rates, sources: b.sources, markups: b.markups, maxAgeHours: ctx.config.rates.maxAgeHours, ...o }), status: o.status };
  };

  app.get('/ops/rates', opsRoute('view', async (c) => ratesView(c, { notice: c.query.done === 'saved' ? c.f.t.saved : undefined })));

  const currencyOf = (c: Ctx) => {
    const cur = text(c.body.currency, 3).toUpperCase();
    return ISO_CURRENCIES.has(cur) && cur !== 'USD' ? cur : null;
  };

  app.post('/ops/rates/markup', opsRoute('rates.edit', async (c) => {
    const currency = currencyOf(c);
    const markup = parseMarkup(text(c.body.markup, 20));
    if (!currency || !markup.ok) return ratesView(c, { error: [!currency ? `${c.f.t.currency}: not an ISO 4217 currency other than USD` : '', !markup.ok ? `${c.f.t.markup}: ${markup.reason}` : ''].filter(Boolean).join('; '), status: 400 });
    await setMarkup(ctx, currency, markup.value, actorOf(c.s));
    return { redirect: '/ops/rates?done=saved' };
  }));

  app.post('/ops/rates/manual', opsRoute('rates.edit', async (c) => {
    const currency = currencyOf(c);
    const rate = parseAmount(text(c.body.rate, 40), { maxDecimals: 8, maxIntegerDigits: 16 });
    if (!currency || !rate.ok || !isPositive(rate.value)) {
      const wrong = !rate.ok ? `${c.f.t.rate}: ${rate.reason}` : !isPositive(rate.value) ? `${c.f.t.rate}: must be greater than 0` : '';
      return ratesView(c, { error: [!currency ? `${c.f.t.currency}: not an ISO 4217 currency other than USD` : '', wrong].filter(Boolean).join('; '), status: 400 });
    }
    // Production: outside the band around the source's last rate (or with none), a request a second operator approves.
    const done = await setRatesOrRequest(ctx, { [currency]: rate.value }, actorOf(c.s));
    return { redirect: done.pending.length ? '/ops/approvals?done=requested' : '/ops/rates?done=saved' };
  }));

  app.post('/ops/rates/fetch', opsRoute('rates.edit', async (c) => {
    const outcomes = await fetchRates(ctx, sources);
    return ratesView(c, { notice: c.f.t.fetched.replace('{result}', outcomes.map((o) => `${o.currency} ${o.result}${o.error ? ` (${o.error})` : ''}`).join(', ') || '—') });
  }));

  // ------------------------------------------------------------------ connectors, reconciliation, audit

  app.get('/ops/connectors', opsRoute('view', async (c) => V.connectorsPage(c.f, {
    connectors: (await allConnectorViews(ctx)).map((x) => ({ name: x.name, updatedAt: x.updatedAt, health: x.health as unknown as Record<string, unknown> })),
    stopped: await stoppedOrders(ctx.db),
  })));

  // ------------------------------------------------------------------ reconciliation (src/reconciliation/)

  const reconView = async (c: Ctx, o: { notice?: string; error?: string; status?: number } = {}) => {
    const [imports, perRule, matches, exceptions, resolved] = await Promise.all([
      listImports(ctx.db, { limit: 20 }), matchesPerRule(ctx.db), listMatches(ctx.db, { limit: 20 }),
      listExceptions(ctx.db, { status: 'open', limit: 100 }), listExceptions(ctx.db, { status: 'resolved', limit: 20 }),
    ]);
    const page = V.reconciliationPage(c.f, { imports: imports.rows, perRule, matches: matches.rows, exceptions: exceptions.rows, resolved: resolved.rows, ...o });
    return { ...page, status: o.status };
  };

  app.get('/ops/reconciliation', opsRoute('view', async (c) => reconView(c, { notice: c.query.done === 'resolved' ? c.f.t.resolvedNotice : undefined })));

  app.post('/ops/reconciliation/exceptions/:id/resolve', opsRoute('reconciliation', async (c) => {
    const id = idOf(c);
    if (id === null) return notFound(c);
    // The forms name their fields after the exception (several on one page): read them back by that prefix.
    const prefix = /^x\d{1,10}$/.test(c.body.prefix ?? '') ? c.body.prefix! : '';
    const at = (k: string) => text(c.body[`${prefix}-${k}`], 500);
    const action = c.body.action === 'match' ? 'match' : at('action');
    const body = action === 'match'
      ? { action, target: { type: at('type'), id: /^\d{1,10}$/.test(at('target')) ? Number(at('target')) : at('target') } }
      : { action, ...(at('reason') ? { reason: at('reason') } : {}) };
    return resolveFromConsole(ctx, c, id, body, reconView);
  }));

  app.get('/ops/audit', opsRoute('view', async (c) => {
    const before = c.query.before ? parseId(c.query.before) : undefined;
    if (before === null) return notFound(c);
    const rows = await listOpsAudit(ctx.db, { before, limit: AUDIT_PAGE + 1 });
    return V.auditPage(c.f, { rows: rows.slice(0, AUDIT_PAGE), next: rows.length > AUDIT_PAGE ? rows[AUDIT_PAGE - 1]!.id : null });
  }));

  // ------------------------------------------------------------------ operators and tokens

  const operatorsView = async (c: Ctx, o: Omit<Parameters<typeof V.operatorsPage>[1], 'operators' | 'tokens'> = {}, status?: number) => ({
    ...V.operatorsPage(c.f, { operators: await listOperators(ctx.db), tokens: await listAdminTokens(ctx.db), ...o }),
    status,
  });

  app.get('/ops/operators', opsRoute('operators', async (c) => operatorsView(c)));

  app.post('/ops/operators', opsRoute('operators', async (c) => {
    const role = c.body.role;
    if (!isOperatorRole(role)) return operatorsView(c, { error: `${c.f.t.role}: ?` }, 400);
    try {
      const op = await createOperator(ctx.db, ctx.box, text(c.body.email, 320), role, actorOf(c.s), ctx.now());
      // The creator is given a one-time enrolment link, never the password nor the authenticator secret.
      return operatorsView(c, { made: { email: op.email, link: `${ctx.config.publicBaseUrl}${op.enrolment.path}`, until: op.enrolment.expiresAt } });
    } catch (err) {
      if (!(err instanceof OperatorError)) throw err;
      return operatorsView(c, { error: err.message }, 400);
    }
  }));

  app.post('/ops/tokens', opsRoute('operators', async (c) => {
    const name = text(c.body.name, 63);
    const scopes = text(c.body.scopes, 200).split(/[\s,]+/).filter(Boolean);
    if (!/^[a-z0-9][a-z0-9_.-]{0,62}$/.test(name) || scopes.length === 0 || !scopes.every(isTokenScope)) {
      return operatorsView(c, { error: `${c.f.t.name} / ${c.f.t.scopes}: ?` }, 400);
    }
    try {
      const t = await createAdminToken(ctx.db, ctx.box, name, scopes, actorOf(c.s), ctx.now());
      return operatorsView(c, { token: t.token });
    } catch (err) {
      if (!(err instanceof TokenError)) throw err;
      return operatorsView(c, { error: err.message }, 400);
    }
  }));

  for (const what of ['rotate', 'revoke'] as const) {
    app.post(`/ops/tokens/:id/${what}`, opsRoute('operators', async (c) => {
      const id = idOf(c);
      if (id === null) return notFound(c);
      try {
        if (what === 'rotate') return operatorsView(c, { token: (await rotateAdminToken(ctx.db, ctx.box, id, actorOf(c.s), ctx.now())).token });
        await revokeAdminToken(ctx.db, id, actorOf(c.s), ctx.now());
        return { redirect: '/ops/operators' };
      } catch (err) {
        if (!(err instanceof TokenError)) throw err;
        return notFound(c);
      }
    }));
  }

  // ------------------------------------------------------------------ areas in their own modules

  registerOpsFees(app, ctx, opsRoute);
  registerOpsSettlements(app, ctx, opsRoute);
  registerOpsConnectorSettings(app, ctx, opsRoute);
  registerOpsStatements(app, ctx, opsRoute, reconView);
  registerOperatorLifecycle(app, ctx, { opsRoute, operatorsView });
}
