// The merchant panel at /panel: server-rendered pages for a merchant's staff. Every handler
// loads a view model through the services (src/panel/*, the deposits, cashouts, refunds, ledger
// and notifications services) and renders a template from views.ts; no SQL and no business
// rule lives here.
//
// Requests pass one gate (panelRoute): the session cookie (HttpOnly, SameSite=Strict, Secure in
// production) must name a live session, the role must hold the page's permission, and every
// POST must carry the session's CSRF token and, when the browser sends one, our own Origin.
// Pages are never framed (CSP frame-ancestors 'none', X-Frame-Options DENY) nor cached.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { CashoutError, createCashout, findCashout, transitionCashout } from '../../cashouts/service.ts';
import { cashoutHistory, listCashouts, type CashoutFilter } from '../../cashouts/list.ts';
import { ACCEPTED_COUNTRIES, isCountryAccepted } from '../../domain/countries.ts';
import { validateCashoutRequest } from '../../domain/cashout-request.ts';
import { CASHOUT_STATUSES, type CashoutStatus, type CashoutTrigger } from '../../domain/cashout-states.ts';
import { methodsForCountry } from '../../domain/catalog.ts';
import { servedMethods } from '../../connectors/registry.ts';
import { DEPOSIT_STATUSES, type DepositStatus } from '../../domain/deposit-states.ts';
import { checkFrameOrigins, frameOriginsInEffect } from '../../domain/frame-origins.ts';
import { toFixed } from '../../domain/money.ts';
import { checkCallbackUrl } from '../../domain/urls.ts';
import { listDeposits, notificationIdsOf, refundsOfDeposit, type DepositFilter } from '../../deposits/list.ts';
import { runSandboxAction } from '../../deposits/sandbox.ts';
import { findDeposit, statusHistory } from '../../deposits/store.ts';
import { getRefund, RefundTransitionError, transitionRefund } from '../../refunds/service.ts';
import { pageDepositError, unavailableAnswer } from '../../http/errors.ts';
import { DepositError } from '../../deposits/errors.ts';
import { merchantBalances } from '../../ledger/ledger.ts';
import { allUsdRates } from '../../lookups/exchange-rates.ts';
import { getMerchant, rotateCredentials, updateMerchant } from '../../merchants/merchants.ts';
import { getNotification, listNotifications, resendNotification } from '../../notifications/store.ts';
import { audit, entry, listAudit } from '../../panel/audit.ts';
import {
  ABSOLUTE_HOURS, CHOICE_MINUTES, chooseAccount, changePassword, completeMfa, confirmTotp, csrfMatches, disableTotp, loadSession, pendingTotpSecret, type Session, signIn, signOut,
  signOutEverywhere, startTotp,
} from '../../panel/auth.ts';
import { movements } from '../../panel/balance.ts';
import { IMPORT_COLUMNS, importCashouts } from '../../panel/cashout-import.ts';
import { credentialLogins } from '../../panel/credentials.ts';
import { csvLine } from '../../panel/csv.ts';
import { refundFromPanel } from '../../panel/refund.ts';
import { type Action, can, isCredentialSet, rotateAction } from '../../panel/roles.ts';
import { homeStats } from '../../panel/stats.ts';
import { inviteUser, listTeam, removeUser, resetUser } from '../../panel/team.ts';
import { sendTestNotification } from '../../panel/test-notification.ts';
import { otpauthUri } from '../../panel/totp.ts';
import { acceptedLang, type Lang } from '../i18n.ts';
import { newNonce, renderPage, sendHtml } from '../layout.ts';
import { panelStrings, statusText } from './i18n.ts';
import * as V from './views.ts';
import { parseId } from '../../domain/ids.ts';

const COOKIE = 'caja_panel';
const LANG_COOKIE = 'caja_panel_lang';
const CHOICE_COOKIE = 'caja_panel_choice';
const PAGE_SIZE = 50;
const EXPORT_BATCH = 500;

type Query = Record<string, string | undefined>;
type Body = Record<string, string | undefined>;

function cookies(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

/** A same-site path inside the panel to go back to after sign-in; anything else is the home page. */
function safeNext(next: string | undefined): string {
  return next && /^\/panel(\/[\w./?=&%-]*)?$/.test(next) && !next.includes('//') ? next : '/panel';
}

function dateParam(v: string | undefined, plusDay = false): Date | undefined | null {
  if (!v) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
  const d = new Date(`${v}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return null;
  return plusDay ? new Date(d.getTime() + 86_400_000) : d;
}

/** The filters every list shares (dates, status, country, search, cursor), or what is wrong. */
function listFilter(q: Query, statuses: readonly string[]) {
  const from = dateParam(q.from);
  const to = dateParam(q.to, true);
  if (from === null || to === null) return 'dates must be YYYY-MM-DD';
  if (q.status && !statuses.includes(q.status)) return 'unknown status';
  const before = parseId(q.before);
  if (q.before && before === null) return 'bad cursor';
  return {
    status: q.status || undefined, country: q.country?.trim().toUpperCase() || undefined,
    search: q.q?.slice(0, 200), from, to, before: before ?? undefined,
  };
}

/** Registers the panel in its own encapsulated scope (its multipart parser and HTML errors stay here). */
export function registerPanel(app: FastifyInstance, ctx: AppContext): void {
  const env = ctx.config.env;
  const staging = env === 'staging';

  // The cashout CSV upload: the raw multipart body, parsed by the platform's FormData.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: 5 * 1024 * 1024 }, (_request, body, done) => done(null, body));

  // Bad input (an unparsable or oversized body, say) is a 4xx page in the person's language, never a 500.
  app.setErrorHandler((err: { statusCode?: number; httpStatus?: number; message: string; details?: string[] }, request, reply) => {
    const b = bareOf(request, reply);
    // The database is unavailable (failover): "try again in a moment" is the truth, as a 503.
    const unavailable = unavailableAnswer(err);
    if (unavailable) {
      request.log.warn({ err }, 'database unavailable');
      reply.header('retry-after', String(unavailable.retryAfterSeconds));
      return render(reply, b.lang, V.messagePage(b, b.t.errorTitle, b.t.error, unavailable.status));
    }
    // Fastify's own refusals carry statusCode; the shared checks of ids and paging throw ApiError (httpStatus);
    // a deposit service's refusal answers from the pages' table.
    const given = err.statusCode ?? err.httpStatus ?? (err instanceof DepositError ? pageDepositError(err).status : undefined);
    const status = given && given >= 400 && given < 500 ? given : 500;
    if (status === 500) request.log.error({ err }, 'panel page failed');
    const page =
      status === 404 ? V.messagePage(b, b.t.notFoundTitle, b.t.notFound, 404)
      : status === 500 ? V.messagePage(b, b.t.errorTitle, b.t.error, 500)
      : V.messagePage(b, b.t.errorTitle, b.t.badRequest.replace('{reason}', err.details?.join('; ') ?? err.message), status);
    return render(reply, b.lang, page);
  });

  const langOf = (request: FastifyRequest, reply: FastifyReply): Lang => {
    const asked = (request.query as Query)?.lang;
    if (asked === 'en' || asked === 'es' || asked === 'pt') {
      reply.header('set-cookie', `${LANG_COOKIE}=${asked}; Path=/panel; Max-Age=31536000; SameSite=Lax${env === 'production' ? '; Secure' : ''}`);
      return asked;
    }
    const c = cookies(request)[LANG_COOKIE];
    if (c === 'en' || c === 'es' || c === 'pt') return c;
    return acceptedLang(request.headers['accept-language']) ?? 'en';
  };

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
    const attrs = `Path=/panel/login; HttpOnly; SameSite=Strict${env === 'production' ? '; Secure' : ''}`;
    reply.header('set-cookie', ticket ? `${CHOICE_COOKIE}=${ticket}; ${attrs}; Max-Age=${CHOICE_MINUTES * 60}` : `${CHOICE_COOKIE}=; ${attrs}; Max-Age=0`);
  }

  function sessionCookie(reply: FastifyReply, token: string | null): void {
    const attrs = `Path=/panel; HttpOnly; SameSite=Strict${env === 'production' ? '; Secure' : ''}`;
    reply.header('set-cookie', token ? `${COOKIE}=${token}; ${attrs}; Max-Age=${ABSOLUTE_HOURS * 3600}` : `${COOKIE}=; ${attrs}; Max-Age=0`);
  }

  /** Our own origin: the public address, and the address this request was made to. */
  function sameOrigin(request: FastifyRequest): boolean {
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    const ours = new Set([new URL(ctx.config.publicBaseUrl).origin, `${request.protocol}://${request.headers.host}`]);
    return ours.has(origin);
  }

  interface Ctx {
    s: Session;
    f: V.Frame;
    lang: Lang;
    request: FastifyRequest;
    reply: FastifyReply;
    query: Query;
    body: Body;
  }
  type Result = V.Page | { redirect: string } | { csv: Readable; filename: string };

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

  // ------------------------------------------------------------------ sign-in

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

  // ------------------------------------------------------------------ home

  app.get('/panel', panelRoute('view', async (c) => {
    const [stats, balances] = await Promise.all([homeStats(ctx.db, c.s.actor.merchantId, ctx.now()), merchantBalances(ctx.db, c.s.actor.merchantId)]);
    return V.homePage(c.f, { stats, balances });
  }));

  // ------------------------------------------------------------------ deposits

  function depositFilter(q: Query): DepositFilter | string {
    const f = listFilter(q, DEPOSIT_STATUSES);
    return typeof f === 'string' ? f : { ...f, status: f.status as DepositStatus | undefined, method: q.method?.trim().toUpperCase() || undefined };
  }

  const countryCodes = ACCEPTED_COUNTRIES.map((x) => x.code);

  app.get('/panel/deposits', panelRoute('view', async (c) => {
    const f = depositFilter(c.query);
    if (typeof f === 'string') return V.depositsPage(c.f, { rows: [], next: null, q: c.query, countries: countryCodes, error: c.f.t.badRequest.replace('{reason}', f) });
    const { rows, next } = await listDeposits(ctx.db, c.s.actor.merchantId, f, PAGE_SIZE);
    return V.depositsPage(c.f, { rows, next, q: c.query, countries: countryCodes });
  }));

  /** A CSV of every row a filter selects, read in batches as the response is written. */
  function csvStream<T>(header: string[], page: (before: number | undefined) => Promise<{ rows: T[]; next: number | null }>, line: (r: T) => unknown[]): Readable {
    return Readable.from((async function* () {
      yield '\uFEFF' + csvLine(header);
      let before: number | undefined;
      for (;;) {
        const { rows, next } = await page(before);
        if (rows.length) yield rows.map((r) => csvLine(line(r))).join('');
        if (next === null) return;
        before = next;
      }
    })());
  }

  app.get('/panel/deposits.csv', panelRoute('view', async (c) => {
    const f = depositFilter(c.query);
    if (typeof f === 'string') return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', f), 400, c.f);
    await audit(ctx.db, c.s.actor, 'deposits.exported', null, { filter: c.query }, ctx.now());
    return {
      filename: 'deposits.csv',
      csv: csvStream(
        ['deposit_id', 'invoice_id', 'status', 'amount', 'currency', 'local_amount', 'local_currency', 'fee_local', 'usd_amount', 'country', 'payment_method', 'payer_email', 'payer_document', 'refunded_amount', 'created_at'],
        (before) => listDeposits(ctx.db, c.s.actor.merchantId, { ...f, before }, EXPORT_BATCH),
        (d) => [d.id, d.invoice_id, d.status, d.amount, d.currency, d.local_amount, d.local_currency, d.fee_local, d.usd_amount, d.country, d.payment_method, d.payer_email, d.payer_document, d.refunded_amount, d.created_at],
      ),
    };
  }));

  async function ownDeposit(c: Ctx) {
    const id = parseId((c.request.params as Query).id);
    const d = id === null ? null : await findDeposit(ctx.db, id);
    // Another merchant's deposit is "not found", exactly like one that does not exist.
    return d && d.merchant_id === c.s.actor.merchantId ? d : null;
  }

  async function depositView(c: Ctx, d: NonNullable<Awaited<ReturnType<typeof ownDeposit>>>, extra: Partial<V.DepositView> = {}): Promise<V.Page> {
    const [history, refunds, ids] = await Promise.all([statusHistory(ctx.db, d.id), refundsOfDeposit(ctx.db, d.id), notificationIdsOf(ctx.db, d.merchant_id, d.id)]);
    const notifications = (await Promise.all(ids.map((id) => getNotification(ctx.db, id, d.merchant_id)))).filter((n) => n !== null);
    const methods = methodsForCountry(d.country).filter((m) => !d.payment_types?.length || d.payment_types.includes(m.type));
    const done =
      c.query.done === 'refund' ? c.f.t.refundCreated.replace('{id}', String(parseId(c.query.refund) ?? ''))
      : c.query.done === 'resend' || c.query.done?.startsWith('refund_') ? c.f.t.done
      : c.query.done ? c.f.t.depositNow.replace('{status}', statusText(c.f.t, d.status)) : undefined;
    return V.depositPage(c.f, { d, history, refunds, notifications, methods, staging, done, ...extra });
  }

  app.get('/panel/deposits/:id', panelRoute('view', async (c) => {
    const d = await ownDeposit(c);
    return d ? depositView(c, d) : notFound(c);
  }));

  app.post('/panel/deposits/:id/sandbox/:action', panelRoute('sandbox', async (c) => {
    const action = (c.request.params as Query).action;
    const d = await ownDeposit(c);
    if (!d || !staging || (action !== 'approve' && action !== 'cancel' && action !== 'expire')) return notFound(c);
    const method = c.body.payment_method?.trim().toUpperCase() || undefined;
    try {
      await runSandboxAction(ctx, d, action, 'panel', method, entry(c.s.actor, `deposit.sandbox_${action}`, `deposit:${d.id}`, method ? { payment_method: method } : {}, ctx.now()));
    } catch (err) {
      if (!(err instanceof DepositError)) throw err;
      return depositView(c, d, { refundError: pageDepositError(err).message });
    }
    return { redirect: `/panel/deposits/${d.id}?done=${action}` };
  }));

  app.post('/panel/deposits/:id/refund', panelRoute('money', async (c) => {
    const d = await ownDeposit(c);
    if (!d) return notFound(c);
    const r = await refundFromPanel(ctx, c.s.actor, d, c.body);
    if (!r.ok) return depositView(c, d, { refundForm: c.body as Record<string, string>, refundError: r.errors.join('; ') });
    return { redirect: `/panel/deposits/${d.id}?done=refund&refund=${r.refund.id}` };
  }));

  // Staging: the bank's answer to a pending refund, as POST /v3/sandbox/refunds/{id}/complete|reject.
  for (const action of ['complete', 'reject'] as const) {
    if (!staging) break;
    app.post(`/panel/refunds/:id/${action}`, panelRoute('sandbox', async (c) => {
      const id = parseId((c.request.params as Query).id);
      const refund = id === null ? null : await getRefund(ctx.db, c.s.actor.merchantId, id);
      if (!refund) return notFound(c);
      try {
        await transitionRefund(
          ctx, c.s.actor.merchantId, refund.id, action === 'complete' ? 'COMPLETED' : 'REJECTED', `sandbox ${action} (panel)`,
          action === 'reject' ? 'The beneficiary bank rejected the refund (sandbox)' : undefined, action === 'reject' ? 'SANDBOX_REJECTED' : undefined,
          entry(c.s.actor, `refund.sandbox_${action}`, `refund:${refund.id}`, { deposit_id: refund.deposit_id }, ctx.now()),
        );
      } catch (err) {
        if (!(err instanceof RefundTransitionError)) throw err;
        const d = await findDeposit(ctx.db, refund.deposit_id);
        return depositView(c, d!, { refundError: err.message });
      }
      return { redirect: `/panel/deposits/${refund.deposit_id}?done=refund_${action}` };
    }));
  }

  app.get('/panel/notifications', panelRoute('notifications', async (c) => {
    const status = c.query.status;
    if (status && status !== 'pending' && status !== 'delivered' && status !== 'failed') {
      return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', 'unknown status'), 400, c.f);
    }
    const rows = await listNotifications(ctx.db, { merchantId: c.s.actor.merchantId, status: status || undefined, before: parseId(c.query.before) ?? undefined, limit: PAGE_SIZE + 1 });
    const next = rows.length > PAGE_SIZE ? Number(rows[PAGE_SIZE - 1]!.id) : null;
    return V.notificationsPage(c.f, { rows: rows.slice(0, PAGE_SIZE), next, q: c.query });
  }));

  app.post('/panel/notifications/:id/resend', panelRoute('notifications', async (c) => {
    const id = parseId((c.request.params as Query).id);
    const ok = id !== null && (await resendNotification(ctx.db, id, c.s.actor.merchantId, entry(c.s.actor, 'notification.resent', `notification:${id}`, {}, ctx.now())));
    if (!ok) return notFound(c);
    const deposit = parseId(c.query.deposit);
    return { redirect: deposit ? `/panel/deposits/${deposit}?done=resend` : '/panel/notifications?done=resend' };
  }));

  // ------------------------------------------------------------------ cashouts

  function cashoutFilter(q: Query): CashoutFilter | string {
    const f = listFilter(q, CASHOUT_STATUSES);
    return typeof f === 'string' ? f : { ...f, status: f.status as CashoutStatus | undefined };
  }


  app.get('/panel/cashouts', panelRoute('view', async (c) => {
    const f = cashoutFilter(c.query);
    if (typeof f === 'string') return V.cashoutsPage(c.f, { rows: [], next: null, q: c.query, error: c.f.t.badRequest.replace('{reason}', f) });
    const { rows, next } = await listCashouts(ctx.db, c.s.actor.merchantId, f, PAGE_SIZE);
    return V.cashoutsPage(c.f, { rows, next, q: c.query });
  }));

  app.get('/panel/cashouts.csv', panelRoute('view', async (c) => {
    const f = cashoutFilter(c.query);
    if (typeof f === 'string') return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', f), 400, c.f);
    await audit(ctx.db, c.s.actor, 'cashouts.exported', null, { filter: c.query }, ctx.now());
    return {
      filename: 'cashouts.csv',
      csv: csvStream(
        ['cashout_id', 'external_id', 'status', 'amount', 'currency', 'local_amount', 'local_currency', 'settlement_amount', 'settlement_currency', 'country', 'beneficiary_name', 'beneficiary_lastname', 'bank_code', 'bank_account', 'rejection_code', 'created_at'],
        (before) => listCashouts(ctx.db, c.s.actor.merchantId, { ...f, before }, EXPORT_BATCH),
        (x) => [x.id, x.external_id, x.status, x.amount, x.currency, x.local_amount, x.local_currency, x.settlement_amount, x.settlement_currency, x.country, x.beneficiary_name, x.beneficiary_lastname, x.bank_code, x.bank_account, x.rejection_code, x.created_at],
      ),
    };
  }));

  const countryOptions = (): [string, string][] => ACCEPTED_COUNTRIES.map((x) => [x.code, `${x.code} — ${x.name}`]);

  app.get('/panel/cashouts/new', panelRoute('money', async (c) => V.cashoutFormPage(c.f, { form: { currency: 'USD' }, errors: [], countries: countryOptions() })));

  app.post('/panel/cashouts', panelRoute('money', async (c) => {
    const { csrf: _csrf, ...form } = c.body;
    const v = validateCashoutRequest(form, env);
    const again = (errors: string[]) => V.cashoutFormPage(c.f, { form: form as Record<string, string>, errors, countries: countryOptions() });
    if (!v.ok) return again(v.details);
    const merchant = await getMerchant(ctx.db, c.s.actor.merchantId);
    try {
      const created = await createCashout(ctx, merchant!, v.value, (x) =>
        entry(c.s.actor, 'cashout.created', `cashout:${x.id}`, { external_id: x.external_id, amount: x.amount, currency: x.currency }, ctx.now()));
      return { redirect: `/panel/cashouts/${created.id}?done=created` };
    } catch (err) {
      if (err instanceof CashoutError) return again([err.message]);
      throw err;
    }
  }));

  app.get('/panel/cashouts/import', panelRoute('money', async (c) => V.importPage(c.f, { columns: IMPORT_COLUMNS })));

  app.post('/panel/cashouts/import', panelRoute('money', async (c) => {
    const t = c.f.t;
    const raw = c.request.body;
    let file: Buffer | null = null;
    let csrf: unknown;
    if (Buffer.isBuffer(raw)) {
      try {
        const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': c.request.headers['content-type'] ?? '' } }).formData();
        csrf = form.get('csrf');
        const f = form.get('file');
        if (f && typeof f !== 'string') file = Buffer.from(await f.arrayBuffer());
      } catch {
        file = null;
      }
    }
    if (!sameOrigin(c.request) || !csrfMatches(c.s, csrf)) return V.messagePage(c.f, t.csrfTitle, t.csrf, 403, c.f);
    if (!file || file.length === 0) return V.importPage(c.f, { columns: IMPORT_COLUMNS, error: t.importUnreadable.replace('{reason}', 'no file') });
    const merchant = await getMerchant(ctx.db, c.s.actor.merchantId);
    const r = await importCashouts(ctx, c.s.actor, merchant!, file);
    const reportHref = (rows: { line: number; external_id: string; reasons: string[] }[]) =>
      `data:text/csv;charset=utf-8,${encodeURIComponent(csvLine(['line', 'external_id', 'reasons']) + rows.map((x) => csvLine([x.line, x.external_id, x.reasons.join('; ')])).join(''))}`;
    switch (r.kind) {
      case 'unreadable':
        return V.importPage(c.f, { columns: IMPORT_COLUMNS, error: t.importUnreadable.replace('{reason}', r.reason) });
      case 'rejected':
        return V.importPage(c.f, {
          columns: IMPORT_COLUMNS, error: t.importRejected.replace('{bad}', String(r.rejected.length)).replace('{rows}', String(r.rows)),
          rejected: r.rejected, reportHref: reportHref(r.rejected),
        });
      case 'duplicate':
        return V.importPage(c.f, { columns: IMPORT_COLUMNS, message: t.importDuplicate.replace('{at}', r.at.toISOString().slice(0, 16).replace('T', ' ')).replace('{count}', String(r.created)) });
      case 'created':
        return V.importPage(c.f, {
          columns: IMPORT_COLUMNS, message: t.importCreated.replace('{count}', String(r.created.length)),
          rejected: r.rejected, reportHref: r.rejected.length ? reportHref(r.rejected) : undefined,
        });
    }
  }, { upload: true }));

  async function ownCashout(c: Ctx) {
    const id = parseId((c.request.params as Query).id);
    return id === null ? null : findCashout(ctx.db, c.s.actor.merchantId, { cashoutId: id });
  }

  app.get('/panel/cashouts/:id', panelRoute('view', async (c) => {
    const x = await ownCashout(c);
    if (!x) return notFound(c);
    return V.cashoutPage(c.f, { c: x, history: await cashoutHistory(ctx.db, x.id), staging, done: c.query.done ? c.f.t.cashoutNow.replace('{status}', statusText(c.f.t, x.status)) : undefined });
  }));

  const CASHOUT_TRIGGERS: Record<string, { perm: Action; staging: boolean }> = {
    hold: { perm: 'money', staging: false }, release: { perm: 'money', staging: false }, cancel: { perm: 'money', staging: false },
    deliver: { perm: 'sandbox', staging: true }, complete: { perm: 'sandbox', staging: true }, reject: { perm: 'sandbox', staging: true },
  };
  for (const [trigger, rule] of Object.entries(CASHOUT_TRIGGERS)) {
    if (rule.staging && !staging) continue;
    app.post(`/panel/cashouts/:id/${trigger}`, panelRoute(rule.perm, async (c) => {
      const x = await ownCashout(c);
      if (!x) return notFound(c);
      try {
        await transitionCashout(ctx, x.id, trigger as CashoutTrigger, {
          actor: rule.staging ? 'sandbox' : 'panel', cause: `panel ${trigger} by ${c.s.actor.email}`, merchantId: c.s.actor.merchantId,
          audit: entry(c.s.actor, `cashout.${trigger}`, `cashout:${x.id}`, { external_id: x.external_id, from: x.status }, ctx.now()),
        });
      } catch (err) {
        if (!(err instanceof CashoutError)) throw err;
        return V.cashoutPage(c.f, { c: x, history: await cashoutHistory(ctx.db, x.id), staging, error: err.message });
      }
      return { redirect: `/panel/cashouts/${x.id}?done=${trigger}` };
    }));
  }

  // ------------------------------------------------------------------ balance

  app.get('/panel/balance', panelRoute('view', async (c) => {
    const balances = await merchantBalances(ctx.db, c.s.actor.merchantId);
    const merchant = await getMerchant(ctx.db, c.s.actor.merchantId);
    const currency = c.query.currency && /^[A-Z]{3}$/.test(c.query.currency) ? c.query.currency : balances[0]?.currency ?? merchant!.settlement_currency;
    if (c.query.before && parseId(c.query.before) === null) return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', 'bad cursor'), 400, c.f);
    const m = await movements(ctx.db, c.s.actor.merchantId, currency, parseId(c.query.before) ?? undefined, PAGE_SIZE);
    return V.balancePage(c.f, { balances: m.balances, currency, rows: m.data, next: m.next, before: c.query.before });
  }));

  app.get('/panel/balance.csv', panelRoute('view', async (c) => {
    const currency = c.query.currency && /^[A-Z]{3}$/.test(c.query.currency) ? c.query.currency : null;
    if (!currency) return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', 'currency is required'), 400, c.f);
    await audit(ctx.db, c.s.actor, 'balance.exported', null, { currency }, ctx.now());
    return {
      filename: `balance-${currency}.csv`,
      csv: csvStream(
        ['transaction_id', 'created_at', 'type', 'source_type', 'source_id', 'available_change', 'reserved_change', 'fee', 'available_after', 'pending'],
        async (before) => {
          const m = await movements(ctx.db, c.s.actor.merchantId, currency, before, EXPORT_BATCH);
          return { rows: m.data, next: m.next };
        },
        (x) => [x.id, x.created_at, x.type, x.source.type, x.source.id, toFixed(x.amount, 2), toFixed(x.reserved, 2), toFixed(x.fee, 2), toFixed(x.availableAfter, 2), x.pending],
      ),
    };
  }));

  // ------------------------------------------------------------------ settings: API access

  async function apiView(c: Ctx, extra: Partial<Parameters<typeof V.apiPage>[1]> = {}): Promise<V.Page> {
    const merchant = (await getMerchant(ctx.db, c.s.actor.merchantId))!;
    const logins = await credentialLogins(ctx.db, c.s.actor.merchantId);
    return V.apiPage(c.f, {
      logins,
      urls: {
        notification_url: merchant.notification_url ?? '', return_url: merchant.return_url ?? '', logo_url: merchant.logo_url ?? '',
        frame_origins: merchant.frame_origins === null ? '' : merchant.frame_origins.length ? merchant.frame_origins.join(' ') : 'none',
      },
      frameOriginsInEffect: frameOriginsInEffect(merchant, env),
      urlErrors: {},
      baseUrl: ctx.config.publicBaseUrl, done: c.query.done ? c.f.t.urlsSaved : undefined, ...extra,
    });
  }

  app.get('/panel/settings/api', panelRoute('api.view', async (c) => apiView(c)));

  // Rotation is the only way a set's secrets are shown: the role table decides per set, for the
  // confirmation page and for the post alike.
  app.get('/panel/settings/api/rotate', panelRoute('api.view', async (c) => {
    const set = c.query.set;
    if (!isCredentialSet(set)) return notFound(c);
    if (!can(c.s.actor.role, rotateAction(set))) return forbidden(c);
    return V.rotateConfirmPage(c.f, set);
  }));

  app.post('/panel/settings/api/rotate', panelRoute('api.view', async (c) => {
    const set = c.body.set;
    if (!isCredentialSet(set)) return notFound(c);
    if (!can(c.s.actor.role, rotateAction(set))) return forbidden(c);
    const r = await rotateCredentials(ctx.db, ctx.box, c.s.actor.merchantId, set, ctx.cache, entry(c.s.actor, 'credentials.rotated', `credentials:${set}`, {}, ctx.now()));
    const issued = r!.credentials as Record<string, unknown>;
    const values = (set === 'read_only' ? { read_only_key: issued.read_only_key } : issued[set]) as Record<string, string>;
    return V.rotatedPage(c.f, set, values);
  }));

  app.post('/panel/settings/urls', panelRoute('settings.edit', async (c) => {
    const errors: Record<string, string> = {};
    const patch: { notification_url?: string | null; return_url?: string | null; logo_url?: string | null; frame_origins?: string[] | null } = {};
    for (const k of ['notification_url', 'return_url', 'logo_url'] as const) {
      const v = c.body[k]?.trim() ?? '';
      if (v === '') patch[k] = null;
      else {
        const reason = checkCallbackUrl(v, env);
        if (reason) errors[k] = reason;
        else patch[k] = v;
      }
    }
    // Origins separated by spaces or commas; empty: the default (the URLs' origins); "none": no site.
    const framing = (c.body.frame_origins ?? '').trim();
    if (framing === '') patch.frame_origins = null;
    else if (framing.toLowerCase() === 'none') patch.frame_origins = [];
    else {
      const r = checkFrameOrigins(framing.split(/[\s,]+/).filter(Boolean), env);
      if ('reasons' in r) errors.frame_origins = r.reasons.join('; ');
      else patch.frame_origins = r.origins;
    }
    if (Object.keys(errors).length) {
      const b = c.body;
      return apiView(c, { urlErrors: errors, urls: { notification_url: b.notification_url ?? '', return_url: b.return_url ?? '', logo_url: b.logo_url ?? '', frame_origins: b.frame_origins ?? '' } });
    }
    await updateMerchant(ctx.db, c.s.actor.merchantId, patch, ctx.cache, entry(c.s.actor, 'settings.urls_changed', null, patch, ctx.now()));
    return { redirect: '/panel/settings/api?done=urls' };
  }));

  app.post('/panel/settings/test-notification', panelRoute('notifications', async (c) => apiView(c, { test: await sendTestNotification(ctx, c.s.actor) })));

  // ------------------------------------------------------------------ team, audit, account, methods

  app.get('/panel/team', panelRoute('team', async (c) => V.teamPage(c.f, { members: await listTeam(ctx, c.s.actor.merchantId), done: c.query.done ? c.f.t.done : undefined })));

  app.post('/panel/team/invite', panelRoute('team', async (c) => {
    const r = await inviteUser(ctx, c.s.actor, c.body.email ?? '', c.body.role ?? '');
    const members = await listTeam(ctx, c.s.actor.merchantId);
    if (!r.ok) {
      const error = r.error === 'taken' ? c.f.t.inviteTaken : c.f.t.inviteBadEmail;
      return V.teamPage(c.f, { members, error, email: c.body.email, role: c.body.role });
    }
    return V.teamPage(c.f, { members, invited: { email: r.email, password: r.password } });
  }));

  app.post('/panel/team/:id/reset', panelRoute('team', async (c) => {
    const id = parseId((c.request.params as Query).id);
    const r = id === null ? null : await resetUser(ctx, c.s.actor, id);
    if (!r) return notFound(c);
    return V.teamPage(c.f, { members: await listTeam(ctx, c.s.actor.merchantId), invited: r, reset: true });
  }));

  app.post('/panel/team/:id/remove', panelRoute('team', async (c) => {
    const id = parseId((c.request.params as Query).id);
    if (id === null || !(await removeUser(ctx, c.s.actor, id))) return notFound(c);
    return { redirect: '/panel/team?done=removed' };
  }));

  app.get('/panel/audit', panelRoute('audit', async (c) => {
    if (c.query.before && parseId(c.query.before) === null) return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', 'bad cursor'), 400, c.f);
    const { rows, next } = await listAudit(ctx.db, c.s.actor.merchantId, parseId(c.query.before), PAGE_SIZE);
    return V.auditPage(c.f, { rows, next, before: c.query.before });
  }));

  const accountView = async (c: Ctx, extra: Partial<Parameters<typeof V.accountPage>[1]> = {}) => {
    const secret = await pendingTotpSecret(ctx, c.s);
    return V.accountPage(c.f, {
      totpEnabled: c.s.totpEnabled, totpSecret: secret, totpUri: secret ? otpauthUri(secret, c.s.actor.email) : undefined,
      done: c.query.done === 'password' ? c.f.t.passwordChanged : c.query.done === 'totp' ? c.f.t.totpOn : c.query.done ? c.f.t.done : undefined, ...extra,
    });
  };

  app.get('/panel/account', panelRoute('view', async (c) => accountView(c)));

  app.post('/panel/account/password', panelRoute('view', async (c) => {
    const r = await changePassword(ctx, c.s, c.body.current ?? '', c.body.next ?? '', c.body.confirm ?? '', c.request.headers['user-agent'] ?? null);
    if (!r.ok) return accountView(c, { error: { current: c.f.t.pwCurrent, short: c.f.t.pwShort, mismatch: c.f.t.pwMismatch }[r.error] });
    sessionCookie(c.reply, r.token);
    return { redirect: '/panel/account?done=password' };
  }));

  app.post('/panel/account/totp/start', panelRoute('view', async (c) => {
    if (!c.s.totpEnabled) await startTotp(ctx, c.s);
    return { redirect: '/panel/account' };
  }));

  app.post('/panel/account/totp/confirm', panelRoute('view', async (c) => {
    if (!(await confirmTotp(ctx, c.s, c.body.code ?? ''))) return accountView(c, { totpError: c.f.t.badCode });
    return { redirect: '/panel/account?done=totp' };
  }));

  app.post('/panel/account/totp/disable', panelRoute('view', async (c) => {
    if (!(await disableTotp(ctx, c.s, c.body.password ?? ''))) return accountView(c, { error: c.f.t.pwCurrent });
    return { redirect: '/panel/account?done=1' };
  }));

  app.get('/panel/methods', panelRoute('view', async (c) => {
    const country = c.query.country && isCountryAccepted(c.query.country.toUpperCase()) ? c.query.country.toUpperCase() : 'BR';
    const served = await servedMethods(ctx, country);
    return V.methodsPage(c.f, { country, countries: countryOptions(), methods: methodsForCountry(country).filter((m) => served.has(m.code)), rates: await allUsdRates(ctx.db, env) });
  }));
}
