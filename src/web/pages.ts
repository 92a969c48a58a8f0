// The customer-facing pages behind the links merchants hand out: GET /pay/<token> (payment
// information of a ONE_SHOT deposit, or of a HOSTED one once its customer chose a method) and
// GET /vouchers/<token> (printable voucher, the receipt_url); the hosted checkout itself is in
// ./checkout/. Everything shown comes from the stored deposit and its stored payment_info, so the
// page says exactly what the merchant's API response said. Once a deposit is expired, cancelled
// or paid, no payment instructions are shown (spec: the QR code must not be shown after
// expiration_date). Staging pages carry a banner and the "Simulate payment" buttons.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseLossless } from 'lossless-json';
import type { AppContext } from '../context.ts';
import { findMethod, type PaymentMethod } from '../domain/catalog.ts';
import { COUNTRY_TIME_ZONES, depositReference } from '../domain/payment-info.ts';
import { toPlainString, fromDb } from '../domain/money.ts';
import type { DepositRow } from '../deposits/store.ts';
import type { CardDetail } from '../domain/cards.ts';
import { customerDeposit, isPayable } from '../deposits/checkout.ts';
import { frameAncestors } from '../domain/frame-origins.ts';
import { runSandboxAction } from '../deposits/sandbox.ts';
import { DepositError } from '../deposits/errors.ts';
import { unavailableAnswer } from '../http/errors.ts';
import { code128Svg } from './code128.ts';
import { itfSvg } from './itf.ts';
import { isValidBoletoBarcode } from '../domain/vouchers.ts';
import { formatAmount, formatDateTimeLocal, langFromAcceptLanguage, localeOf, PAGE_LANGUAGES, resolveLang, strings, type Lang, type Strings } from './i18n.ts';
import { EMPTY, html, raw, type SafeHtml } from './html.ts';
import { newNonce, renderPage, safeHref, sendHtml } from './layout.ts';
import { checkCsrf, csrfInput } from './csrf.ts';

/** payment_info as stored; numbers kept as their exact JSON text. */
interface StoredPaymentInfo {
  type?: string;
  payment_method?: string;
  payment_method_name?: string;
  amount?: string;
  currency?: string;
  expiration_date?: string;
  metadata?: Record<string, string>;
  secondary_metadata?: Record<string, string>;
}

/** What the customer can still do with a deposit. */
export type Phase = 'payable' | 'expired' | 'cancelled' | 'completed' | 'confirming';

/** What the request asks of the page besides the token: the switcher's language, embedding. */
export interface PageRequest {
  lang?: string;
  acceptLanguage?: string;
  iframe: boolean;
}

/** The view model every customer page renders from. */
export interface Loaded {
  d: DepositRow;
  merchantName: string;
  /** The deposit's `logo`, else the merchant's setting. */
  merchantLogo: string | null;
  merchantReturnUrl: string | null;
  cardDetail: CardDetail | null;
  method: PaymentMethod | undefined;
  info: StoredPaymentInfo | null;
  phase: Phase;
  lang: Lang;
  /** The language picked with the switcher, carried on our own links and forms. */
  chosenLang: Lang | undefined;
  t: Strings;
  locale: string;
  timeZone: string;
  staging: boolean;
  /** Opened with iframe_view=1 and allowed to be framed. */
  embedded: boolean;
  /** Who may frame it then: the merchant's origins (domain/frame-origins.ts); empty, nobody. */
  frameOrigins: string[];
  now: Date;
}

function parseInfo(text: string | null): StoredPaymentInfo | null {
  if (!text) return null;
  const raw = parseLossless(text, null, (digits: string) => digits) as Record<string, unknown>;
  const strMap = (v: unknown) =>
    v && typeof v === 'object' ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)])) : undefined;
  const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return {
    type: str(raw.type),
    payment_method: str(raw.payment_method),
    payment_method_name: str(raw.payment_method_name),
    amount: str(raw.amount),
    currency: str(raw.currency),
    expiration_date: str(raw.expiration_date),
    metadata: strMap(raw.metadata),
    secondary_metadata: strMap(raw.secondary_metadata),
  };
}

function phaseOf(d: DepositRow, cancelCause: string | null, now: Date): Phase {
  switch (d.status) {
    case 'COMPLETED':
      return 'completed';
    case 'APPROVED':
      return 'confirming';
    case 'CANCELLED':
      // Expiry and cancellation both end in CANCELLED; the customer is told which one it was.
      return cancelCause === 'expiry' ? 'expired' : 'cancelled';
    default:
      // PENDING: the checkout's own rule (the expiry worker runs every so often; the page does not wait for it).
      return isPayable(d, now) ? 'payable' : 'expired';
  }
}

/** Framing is allowed for the hosted checkout and for methods meant to be embedded. */
function mayFrame(d: DepositRow, method: PaymentMethod | undefined): boolean {
  return d.checkout_type === 'HOSTED' || method?.iframe === true;
}

export async function load(ctx: AppContext, token: string, req: PageRequest): Promise<Loaded | null> {
  const c = await customerDeposit(ctx, token);
  if (!c) return null;
  const { d } = c;
  const now = ctx.now();
  const chosenLang = (PAGE_LANGUAGES as readonly string[]).includes(req.lang ?? '') ? (req.lang as Lang) : undefined;
  const lang = resolveLang(chosenLang, d.language, req.acceptLanguage, d.country);
  const phase = phaseOf(d, c.cancelCause, now);
  const method = d.payment_method ? findMethod(d.country, d.payment_method) : undefined;
  return {
    d,
    merchantName: c.merchantName,
    merchantLogo: c.merchantLogo,
    merchantReturnUrl: c.merchantReturnUrl,
    cardDetail: c.cardDetail,
    method,
    info: parseInfo(d.payment_info),
    phase,
    lang,
    chosenLang,
    t: strings(lang),
    locale: localeOf(lang, d.country),
    timeZone: COUNTRY_TIME_ZONES[d.country] ?? 'UTC',
    staging: ctx.config.env === 'staging',
    embedded: req.iframe && mayFrame(d, method),
    frameOrigins: c.frameOrigins,
    now,
  };
}

// ---------------------------------------------------------------------------------------------
// Fragments

export const row = (label: string, value: unknown, field?: string, mono = false) =>
  html`<dt>${label}</dt><dd${field ? html` data-field="${field}"` : ''}${mono ? raw(' class="mono"') : ''}>${value}</dd>`;

export function amountBlock(label: string, exact: string, currency: string, locale: string): SafeHtml {
  return html`<p class="amount"><span class="label">${label}</span><data value="${exact}" data-field="amount">${currency} ${formatAmount(exact, locale)}</data></p>`;
}

/** "Amount to pay" only while something is to be paid. */
export function amountLabel(l: Loaded): string {
  return l.phase === 'payable' ? l.t.amount : l.phase === 'completed' || l.phase === 'confirming' ? l.t.amountPaid : l.t.amountDue;
}

export function timeHtml(l: Loaded, when: Date): SafeHtml {
  return html`<time datetime="${when.toISOString().replace(/\.\d{3}Z$/, 'Z')}">${formatDateTimeLocal(when, l.locale, l.timeZone)}</time>`;
}

/** Time left as H:MM:SS; the page script keeps it ticking. */
function countdown(l: Loaded): SafeHtml {
  const s = Math.max(0, Math.floor((l.d.expires_at.getTime() - l.now.getTime()) / 1000));
  const p = (n: number) => String(n).padStart(2, '0');
  const text = `${s >= 86400 ? `${Math.floor(s / 86400)}d ` : ''}${Math.floor((s % 86400) / 3600)}:${p(Math.floor((s % 3600) / 60))}:${p(s % 60)}`;
  return html`<span class="countdown" data-countdown="${l.d.expires_at.toISOString()}">${text}</span>`;
}

export function statusBadge(l: Loaded): SafeHtml {
  const key = l.phase === 'expired' ? 'EXPIRED' : l.d.status;
  const label = l.t[`status${key}` as keyof Strings] ?? key;
  return html`<span class="badge ${key}" data-status="${key}">${label}</span>`;
}

export function methodHeader(l: Loaded, method = l.method): SafeHtml {
  const name = l.info?.payment_method_name ?? method?.name ?? l.d.payment_method ?? '';
  // Same-origin path: the CSP allows images from 'self' (and the merchant logo's origin).
  const logo = method ? html`<img src="${method.logo}" alt="" width="72" height="29">` : '';
  return html`<header class="method">${logo}<span data-field="payment_method_name">${name}</span></header>`;
}

/** Why nothing can be paid any more, instead of the instructions. */
export function phaseNotice(l: Loaded): SafeHtml {
  const t = l.t;
  const text: Record<Exclude<Phase, 'payable'>, [string, string]> = {
    expired: [t.expired, t.expiredHint],
    cancelled: [t.cancelled, t.cancelledHint],
    completed: [t.completed, t.completedHint],
    confirming: [t.confirming, t.confirmingHint],
  };
  if (l.phase === 'payable') return EMPTY;
  const [title, hint] = text[l.phase];
  return html`<div class="notice ${l.phase}" role="status" data-phase="${l.phase}"><h2>${title}</h2><p>${hint}</p></div>`;
}

/**
 * Where "Return to the merchant" leads: the signed return redirect when the merchant has a
 * return URL (streamline deposits, or one in its settings); else the URL the deposit gave for
 * the outcome at hand.
 */
export function returnHref(l: Loaded, base: string): string | undefined {
  if (l.d.return_url || l.merchantReturnUrl) return `${base}/return/${l.d.token}`;
  const failed = l.phase === 'expired' || l.phase === 'cancelled';
  return failed ? (safeHref(l.d.back_url) ?? safeHref(l.d.success_url)) : (safeHref(l.d.success_url) ?? safeHref(l.d.back_url));
}

/** Links to the merchant leave the merchant's iframe for the whole window. */
export const topTarget = (l: Loaded) => (l.embedded ? raw(' target="_top"') : EMPTY);

export function returnLink(l: Loaded, base: string): SafeHtml {
  const back = returnHref(l, base);
  return back ? html`<p class="noprint"><a class="button secondary" href="${back}"${topTarget(l)} data-link="return">${l.t.returnToMerchant}</a></p>` : EMPTY;
}

/** One of our own pages, keeping the switcher's language and the embedding. */
export function pageLink(l: Loaded, path: string, query: Record<string, string> = {}): string {
  const q = new URLSearchParams(query);
  if (l.chosenLang) q.set('lang', l.chosenLang);
  if (l.embedded) q.set('iframe_view', '1');
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}

/** The same state for our own forms. */
export function stateInputs(l: Loaded): SafeHtml {
  return html`${l.chosenLang ? html`<input type="hidden" name="lang" value="${l.chosenLang}">` : ''}${l.embedded ? raw('<input type="hidden" name="iframe_view" value="1">') : ''}`;
}

/** Hidden until the page script shows it; `id` names the element whose text it copies. */
function copyButton(t: Strings, id: string): SafeHtml {
  return html`<div class="actions noprint"><button type="button" class="button secondary" hidden data-copy="${id}" data-done="${t.copied}">${t.copy}</button><span id="${id}-status" aria-live="polite"></span></div>`;
}

function codeWithCopy(t: Strings, id: string, field: string, value: string): SafeHtml {
  return html`<p class="code" id="${id}" data-field="${field}">${value}</p>${copyButton(t, id)}`;
}

/**
 * The bar code drawn from its digits: 2 px (0.53 mm in print) per module, 64 px (17 mm) high.
 * A boleto's 44 digits are drawn in Interleaved 2 of 5, the symbology Brazilian banks scan;
 * other vouchers in Code 128.
 */
function barcode(value: string, label: string): SafeHtml {
  try {
    const opts = { label, modulePx: 2, heightPx: 64 };
    return isValidBoletoBarcode(value) ? itfSvg(value, opts) : code128Svg(value, opts);
  } catch {
    return EMPTY;
  }
}

function instructions(l: Loaded): SafeHtml {
  const { t, info } = l;
  const md = info?.metadata ?? {};
  const sec = info?.secondary_metadata ?? {};
  switch (l.method?.kind) {
    case 'pix': {
      const qr = /^[A-Za-z0-9+/]+=*$/.test(sec.qr_code ?? '')
        ? html`<img class="qr" src="data:image/png;base64,${sec.qr_code}" alt="${t.pixQrAlt}" width="240" height="240" data-field="qr_code">`
        : '';
      return html`<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${t.pixScan}</h2>${qr}${
        sec.digitable_line ? html`<p>${t.pixCopy}</p>${codeWithCopy(t, 'pix-code', 'digitable_line', sec.digitable_line)}` : ''}${
        md.beneficiary_name ? html`<dl>${row(t.beneficiary, md.beneficiary_name, 'beneficiary_name')}${md.CNPJ ? row(t.cnpj, md.CNPJ, 'CNPJ', true) : ''}</dl>` : ''}</section>`;
    }
    case 'bank_transfer':
    case 'bank_deposit': {
      const isClabe = l.d.country === 'MX' && /^\d{18}$/.test(md.account ?? '');
      const rows = [
        md.beneficiary_name ? row(t.beneficiary, md.beneficiary_name, 'beneficiary_name') : '',
        md.agency ? row(t.agency, md.agency, 'agency', true) : '',
        md.account ? row(isClabe ? t.clabe : t.account, html`<span id="account-copy">${md.account}</span>`, 'account', true) : '',
        md.CNPJ ? row(t.cnpj, md.CNPJ, 'CNPJ', true) : '',
        md.payer_document ? row(t.payerDocument, md.payer_document, 'payer_document', true) : '',
      ];
      // An 18-digit CLABE is what people mistype; it gets a copy button.
      return html`<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${l.method.kind === 'bank_deposit' ? t.depositIntro : t.bankIntro}</h2><dl>${rows}</dl>${isClabe ? copyButton(t, 'account-copy') : ''}</section>`;
    }
    case 'voucher': {
      const receipt = safeHref(md.receipt_url);
      return html`<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${t.voucherIntro}</h2>${
        md.bar_code ? html`${barcode(md.bar_code, `${t.barCode}: ${md.bar_code}`)}<dl>${row(t.barCode, md.bar_code, 'bar_code', true)}</dl>` : ''}${
        md.digitable_line ? html`<p>${t.digitableLine}</p>${codeWithCopy(t, 'voucher-line', 'digitable_line', md.digitable_line)}` : ''}${
        receipt ? html`<p><a href="${receipt}" data-field="receipt_url">${t.openVoucher}</a></p>` : ''}</section>`;
    }
    default:
      return html`<section class="card"><p>${t.noInstructions}</p></section>`;
  }
}

export function summary(l: Loaded, dueLabel: string): SafeHtml {
  const { t, d, info } = l;
  const reference = info?.metadata?.reference ?? info?.secondary_metadata?.reference ?? depositReference(d.id);
  const card = l.cardDetail ? `${l.cardDetail.brand} ${l.cardDetail.masked_card}` : '';
  return html`<dl>${d.description ? row(t.description, d.description, 'description') : ''}${row(t.reference, reference, 'reference', true)}${
    // A paid deposit has no deadline left to show.
    l.phase === 'completed' || l.phase === 'confirming' ? '' : row(dueLabel, timeHtml(l, d.expires_at), 'expiration_date')}${
    l.phase === 'payable' ? row(t.timeLeft, countdown(l), 'time_left') : ''}${
    card ? row(t.paidWith, card, 'card', true) : ''}${row(t.status, statusBadge(l), 'status')}</dl>`;
}

/** The staging banner, the language switcher and the merchant's name and logo. */
export function pageTop(l: Loaded, here: string, hereQuery: Record<string, string> = {}): SafeHtml {
  const logo = safeHref(l.merchantLogo);
  const langs = PAGE_LANGUAGES.map((code) => {
    const q = new URLSearchParams({ ...hereQuery, lang: code });
    if (l.embedded) q.set('iframe_view', '1');
    const current = code === l.lang ? raw(' aria-current="true"') : '';
    return html`<a href="${`${here}?${q}`}" lang="${code}" hreflang="${code}"${current}>${code.toUpperCase()}</a>`;
  });
  return html`${l.staging ? html`<p class="staging" role="note" data-staging>${l.t.stagingBanner}</p>` : ''}<nav class="langs noprint" aria-label="${l.t.language}">${langs}</nav><header class="merchant">${logo ? html`<img src="${logo}" alt="" data-field="logo">` : ''}<span data-field="merchant">${l.merchantName}</span></header>`;
}

export function pageEnd(l: Loaded): SafeHtml {
  return html`<footer>${l.t.secured}</footer>`;
}

/** Staging only: the sandbox's outcomes as buttons, for a payable deposit with a method. */
function simulateForm(ctx: AppContext, l: Loaded): SafeHtml {
  if (!l.staging || l.phase !== 'payable' || !l.d.payment_method) return EMPTY;
  const t = l.t;
  return html`<section class="card noprint" aria-labelledby="simulate"><h2 id="simulate">${t.simulateTitle}</h2><p class="hint">${t.simulateHint}</p><form method="post" action="/pay/${l.d.token}/simulate">${csrfInput(ctx, l.d.token, 'simulate')}${stateInputs(l)}<div class="stack"><button type="submit" name="action" value="approve" class="button">${t.simulatePayment}</button><button type="submit" name="action" value="cancel" class="button danger">${t.simulateCancellation}</button></div></form></section>`;
}

// ---------------------------------------------------------------------------------------------
// Pages

function payPage(ctx: AppContext, l: Loaded, base: string): Rendered {
  const { t, info, d } = l;
  const exact = info?.amount ?? toPlainString(fromDb(d.payer_amount));
  const currency = info?.currency ?? d.local_currency;
  const body = html`${pageTop(l, `/pay/${d.token}`)}<section class="card">${methodHeader(l)}<h1>${t.payTitle}</h1>${amountBlock(amountLabel(l), exact, currency, l.locale)}${summary(l, t.expires)}</section>${
    l.phase === 'payable' ? instructions(l) : phaseNotice(l)}${simulateForm(ctx, l)}${returnLink(l, base)}${pageEnd(l)}`;
  return { title: t.payTitle, body, script: l.phase === 'payable' };
}

function voucherPage(l: Loaded): Rendered {
  const { t, info } = l;
  const md = info?.metadata ?? {};
  const payable = l.phase === 'payable';
  const code = payable
    ? html`<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${t.voucherIntro}</h2>${barcode(md.bar_code!, `${t.barCode}: ${md.bar_code}`)}<dl>${row(t.barCode, md.bar_code, 'bar_code', true)}${
      md.digitable_line ? row(t.digitableLine, md.digitable_line, 'digitable_line', true) : ''}</dl></section><p class="noprint"><button type="button" class="button" hidden data-print>${t.print}</button></p>`
    : phaseNotice(l);
  const body = html`${pageTop(l, `/vouchers/${l.d.token}`)}<section class="card">${methodHeader(l)}<h1>${t.voucherTitle}</h1>${amountBlock(amountLabel(l), info!.amount!, info!.currency!, l.locale)}${summary(l, t.due)}</section>${code}${pageEnd(l)}`;
  return { title: t.voucherTitle, body, script: payable };
}

/** A post without a valid form token, or from another site. */
export function formRefused(l: Loaded): Rendered {
  return { title: l.t.errorTitle, status: 403, body: html`${pageTop(l, `/pay/${l.d.token}`)}<section class="card"><h1>${l.t.errorTitle}</h1><p>${l.t.formExpired}</p></section>` };
}

function messagePage(lang: Lang, title: string, text: string, nonce: string): SafeHtml {
  return renderPage({ lang, title, nonce, body: html`<section class="card"><h1>${title}</h1><p>${text}</p></section>` });
}

// ---------------------------------------------------------------------------------------------
// Routes

/** What a page handler answers: a page, a redirect (303, so a POST becomes a GET), or 404. */
export type Rendered = { title: string; body: SafeHtml; status?: number; script?: boolean } | { redirect: string } | null;

type TokenRequest = FastifyRequest<{ Params: { token: string }; Querystring: Record<string, string | undefined>; Body: Record<string, string | undefined> }>;

/** Origins our forms' posts may redirect to: the merchant's URLs for this deposit. */
function redirectOrigins(l: Loaded): string[] {
  const urls = [l.d.back_url, l.d.success_url, l.d.error_url];
  const origins = urls.map((u) => safeHref(u)).filter((u): u is string => !!u).map((u) => new URL(u).origin);
  return [...new Set(origins)];
}

/**
 * A customer page route: loads the view model (404 for an unknown token), renders or redirects,
 * and turns any failure into a page in the customer's language, never a stack trace.
 */
export function customerRoute(
  ctx: AppContext,
  handler: (l: Loaded, request: TokenRequest) => Promise<Rendered> | Rendered,
): (request: TokenRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return async (request, reply) => {
    const nonce = newNonce();
    const fallbackLang = langFromAcceptLanguage(request.headers['accept-language']);
    const input = { ...request.query, ...(request.body && typeof request.body === 'object' ? request.body : {}) };
    try {
      const l = await load(ctx, request.params.token, {
        lang: input.lang,
        acceptLanguage: request.headers['accept-language'],
        iframe: /^(1|true)$/i.test(input.iframe_view ?? ''),
      });
      const out = l ? await handler(l, request) : null;
      if (!l || out === null) {
        const t = strings(l?.lang ?? fallbackLang);
        return sendHtml(reply, messagePage(l?.lang ?? fallbackLang, t.notFoundTitle, t.notFound, nonce), { status: 404, nonce });
      }
      if ('redirect' in out) return reply.status(303).header('cache-control', 'no-store').header('referrer-policy', 'same-origin').redirect(out.redirect, 303);
      const html = renderPage({
        lang: l.lang, title: `${out.title} · ${l.merchantName}`, body: out.body, nonce, script: out.script,
        embedded: l.embedded,
      });
      const logo = safeHref(l.merchantLogo);
      return sendHtml(reply, html, {
        status: out.status,
        nonce,
        // Only the merchant's own sites may frame it (its setting, else the origins of its
        // notification and return URLs); without any, nobody: 'none' and X-Frame-Options DENY.
        frameAncestors: l.embedded ? frameAncestors(l.frameOrigins) : undefined,
        formAction: ["'self'", ...redirectOrigins(l)],
        imgSources: logo ? [new URL(logo).origin] : [],
      });
    } catch (err) {
      const t = strings(fallbackLang);
      // The database is unavailable (failover): the page says to try again in a moment, as a 503.
      const unavailable = unavailableAnswer(err);
      if (unavailable) {
        request.log.warn({ err }, 'database unavailable');
        reply.header('retry-after', String(unavailable.retryAfterSeconds));
        return sendHtml(reply, messagePage(fallbackLang, t.errorTitle, t.error, nonce), { status: unavailable.status, nonce });
      }
      // Never a stack trace to a customer; the log has it.
      request.log.error({ err }, 'customer page failed');
      return sendHtml(reply, messagePage(fallbackLang, t.errorTitle, t.error, nonce), { status: 500, nonce });
    }
  };
}

export function registerCustomerPages(app: FastifyInstance, ctx: AppContext): void {
  const base = () => ctx.config.publicBaseUrl;
  // A HOSTED deposit has payment information once its customer has chosen a (non-card) method.
  app.get('/pay/:token', { schema: { hide: true } }, customerRoute(ctx, (l) => (l.info ? payPage(ctx, l, base()) : null)));
  app.get(
    '/vouchers/:token',
    { schema: { hide: true } },
    customerRoute(ctx, (l) => (l.method?.kind === 'voucher' && l.info?.metadata?.bar_code && l.info.amount && l.info.currency ? voucherPage(l) : null)),
  );
  if (ctx.config.env === 'staging') {
    app.post(
      '/pay/:token/simulate',
      { schema: { hide: true } },
      customerRoute(ctx, async (l, request) => {
        const body = request.body ?? {};
        if (!l.info) return null;
        if (!checkCsrf(ctx, request, l.d.token, 'simulate', body.csrf)) return formRefused(l);
        const action = body.action === 'approve' ? 'approve' : body.action === 'cancel' ? 'cancel' : null;
        if (!action) return null;
        try {
          await runSandboxAction(ctx, l.d, action, 'sandbox');
        } catch (err) {
          // A second click after the first changed the status: the page shows the state as it is.
          if (!(err instanceof DepositError)) throw err;
        }
        return { redirect: pageLink(l, `/pay/${l.d.token}`) };
      }),
    );
  }
}
