// The customer-facing pages behind the links merchants hand out: GET /pay/<token> (ONE_SHOT
// payment information), GET /vouchers/<token> (printable voucher, the receipt_url) and
// GET /checkout/<token> (HOSTED; an honest placeholder until the hosted checkout exists).
// Everything shown comes from the stored deposit and its stored payment_info, so the page says
// exactly what the merchant's API response said. Once a deposit is expired, cancelled or paid,
// no payment instructions are shown (spec: the QR code must not be shown after expiration_date).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseLossless } from 'lossless-json';
import type { AppContext } from '../context.ts';
import { findMethod, type PaymentMethod } from '../domain/catalog.ts';
import { COUNTRY_TIME_ZONES, depositReference } from '../domain/payment-info.ts';
import { toPlainString, fromDb } from '../domain/money.ts';
import { findDepositByToken, type DepositRow } from '../deposits/store.ts';
import { code128Svg } from './code128.ts';
import { itfSvg } from './itf.ts';
import { isValidBoletoBarcode } from '../domain/vouchers.ts';
import { formatAmount, formatDateTimeLocal, langFromAcceptLanguage, localeOf, pickLang, strings, type Lang, type Strings } from './i18n.ts';
import { esc, newNonce, renderPage, safeHref, sendHtml } from './layout.ts';

/** Tokens are 128 random bits in base64url: 22 characters. Anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{22}$/;

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
type Phase = 'payable' | 'expired' | 'cancelled' | 'completed' | 'confirming';

interface Loaded {
  d: DepositRow;
  merchantName: string;
  merchantReturnUrl: string | null;
  method: PaymentMethod | undefined;
  info: StoredPaymentInfo | null;
  phase: Phase;
  lang: Lang;
  t: Strings;
  locale: string;
  timeZone: string;
  refreshSeconds: number | undefined;
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

async function phaseOf(ctx: AppContext, d: DepositRow): Promise<Phase> {
  switch (d.status) {
    case 'COMPLETED':
      return 'completed';
    case 'APPROVED':
      return 'confirming';
    case 'CANCELLED': {
      // Expiry and cancellation both end in CANCELLED; the customer is told which one it was.
      const { rows } = await ctx.db.query<{ cause: string }>(
        "SELECT cause FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'CANCELLED' ORDER BY id DESC LIMIT 1",
        [d.id],
      );
      return rows[0]?.cause === 'expiry' ? 'expired' : 'cancelled';
    }
    default:
      // The expiry worker runs every so often; the page does not wait for it.
      return ctx.now().getTime() >= d.expires_at.getTime() ? 'expired' : 'payable';
  }
}

async function load(ctx: AppContext, token: string): Promise<Loaded | null> {
  if (!TOKEN.test(token)) return null;
  const d = await findDepositByToken(ctx.db, token);
  if (!d) return null;
  const m = (await ctx.db.query<{ name: string; return_url: string | null }>('SELECT name, return_url FROM merchants WHERE id = $1', [d.merchant_id])).rows[0];
  const lang = pickLang(d.language);
  const phase = await phaseOf(ctx, d);
  const refresh = phase === 'payable' ? (d.expires_at.getTime() - ctx.now().getTime()) / 1000 + 1 : undefined;
  return {
    d,
    merchantName: m?.name ?? '',
    merchantReturnUrl: m?.return_url ?? null,
    method: d.payment_method ? findMethod(d.country, d.payment_method) : undefined,
    info: parseInfo(d.payment_info),
    phase,
    // An open page reloads just after expiry so it stops showing the QR and codes. Browsers
    // keep timers up to ~24.8 days; longer-lived deposits simply do not auto-reload.
    refreshSeconds: refresh !== undefined && refresh < 2_000_000 ? refresh : undefined,
    lang,
    t: strings(lang),
    locale: localeOf(lang, d.country),
    timeZone: COUNTRY_TIME_ZONES[d.country] ?? 'UTC',
  };
}

// ---------------------------------------------------------------------------------------------
// Fragments

const row = (label: string, valueHtml: string, field?: string, mono = false) =>
  `<dt>${esc(label)}</dt><dd${field ? ` data-field="${esc(field)}"` : ''}${mono ? ' class="mono"' : ''}>${valueHtml}</dd>`;

function amountBlock(t: Strings, exact: string, currency: string, locale: string): string {
  return `<p class="amount"><span class="label">${esc(t.amount)}</span><data value="${esc(exact)}" data-field="amount">${esc(currency)} ${esc(formatAmount(exact, locale))}</data></p>`;
}

function timeHtml(l: Loaded, when: Date): string {
  return `<time datetime="${esc(when.toISOString().replace(/\.\d{3}Z$/, 'Z'))}">${esc(formatDateTimeLocal(when, l.locale, l.timeZone))}</time>`;
}

function statusBadge(l: Loaded): string {
  const key = l.phase === 'expired' ? 'EXPIRED' : l.d.status;
  const label = l.t[`status${key}` as keyof Strings] ?? key;
  return `<span class="badge ${esc(key)}" data-status="${esc(key)}">${esc(label)}</span>`;
}

function methodHeader(l: Loaded): string {
  const name = l.info?.payment_method_name ?? l.method?.name ?? l.d.payment_method ?? '';
  // Same-origin path: the CSP allows images from 'self' only (and data: for the QR).
  const logo = l.method ? `<img src="${esc(l.method.logo)}" alt="" width="72" height="29">` : '';
  return `<header class="method">${logo}<span data-field="payment_method_name">${esc(name)}</span></header>`;
}

/** Why nothing can be paid any more, instead of the instructions. */
function phaseNotice(l: Loaded): string {
  const t = l.t;
  const text: Record<Exclude<Phase, 'payable'>, [string, string]> = {
    expired: [t.expired, t.expiredHint],
    cancelled: [t.cancelled, t.cancelledHint],
    completed: [t.completed, t.completedHint],
    confirming: [t.confirming, t.confirmingHint],
  };
  if (l.phase === 'payable') return '';
  const [title, hint] = text[l.phase];
  return `<div class="notice ${l.phase}" role="status" data-phase="${l.phase}"><h2>${esc(title)}</h2><p>${esc(hint)}</p></div>`;
}

/**
 * Where "Return to the merchant" leads: the signed return redirect when the merchant has a
 * return URL (streamline deposits, or one in its settings); else the URL the deposit gave for
 * the outcome at hand.
 */
function returnHref(l: Loaded, base: string): string | undefined {
  if (l.d.return_url || l.merchantReturnUrl) return `${base}/return/${l.d.token}`;
  const failed = l.phase === 'expired' || l.phase === 'cancelled';
  return failed ? (safeHref(l.d.back_url) ?? safeHref(l.d.success_url)) : (safeHref(l.d.success_url) ?? safeHref(l.d.back_url));
}

/** Hidden until the page script shows it; `id` names the element whose text it copies. */
function copyButton(t: Strings, id: string): string {
  return (
    `<div class="actions noprint"><button type="button" class="button secondary" hidden data-copy="${id}" data-done="${esc(t.copied)}">${esc(t.copy)}</button>` +
    `<span id="${id}-status" aria-live="polite"></span></div>`
  );
}

function codeWithCopy(t: Strings, id: string, field: string, value: string): string {
  return `<p class="code" id="${id}" data-field="${esc(field)}">${esc(value)}</p>${copyButton(t, id)}`;
}

/**
 * The bar code drawn from its digits: 2 px (0.53 mm in print) per module, 64 px (17 mm) high.
 * A boleto's 44 digits are drawn in Interleaved 2 of 5, the symbology Brazilian banks scan;
 * other vouchers in Code 128.
 */
function barcode(value: string, label: string): string {
  try {
    const opts = { label, modulePx: 2, heightPx: 64 };
    return isValidBoletoBarcode(value) ? itfSvg(value, opts) : code128Svg(value, opts);
  } catch {
    return '';
  }
}

function instructions(l: Loaded): { html: string; script: boolean } {
  const { t, info } = l;
  const md = info?.metadata ?? {};
  const sec = info?.secondary_metadata ?? {};
  switch (l.method?.kind) {
    case 'pix': {
      const qr = /^[A-Za-z0-9+/]+=*$/.test(sec.qr_code ?? '')
        ? `<img class="qr" src="data:image/png;base64,${sec.qr_code}" alt="${esc(t.pixQrAlt)}" width="240" height="240" data-field="qr_code">`
        : '';
      return {
        html:
          `<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${esc(t.pixScan)}</h2>${qr}` +
          (sec.digitable_line ? `<p>${esc(t.pixCopy)}</p>${codeWithCopy(t, 'pix-code', 'digitable_line', sec.digitable_line)}` : '') +
          (md.beneficiary_name ? `<dl>${row(t.beneficiary, esc(md.beneficiary_name), 'beneficiary_name')}${md.CNPJ ? row(t.cnpj, esc(md.CNPJ), 'CNPJ', true) : ''}</dl>` : '') +
          `</section>`,
        script: Boolean(sec.digitable_line),
      };
    }
    case 'bank_transfer':
    case 'bank_deposit': {
      const isClabe = l.d.country === 'MX' && /^\d{18}$/.test(md.account ?? '');
      const rows = [
        md.beneficiary_name ? row(t.beneficiary, esc(md.beneficiary_name), 'beneficiary_name') : '',
        md.agency ? row(t.agency, esc(md.agency), 'agency', true) : '',
        md.account ? row(isClabe ? t.clabe : t.account, `<span id="account-copy">${esc(md.account)}</span>`, 'account', true) : '',
        md.CNPJ ? row(t.cnpj, esc(md.CNPJ), 'CNPJ', true) : '',
        md.payer_document ? row(t.payerDocument, esc(md.payer_document), 'payer_document', true) : '',
      ].join('');
      // An 18-digit CLABE is what people mistype; it gets a copy button.
      return {
        html:
          `<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${esc(l.method.kind === 'bank_deposit' ? t.depositIntro : t.bankIntro)}</h2>` +
          `<dl>${rows}</dl>${isClabe ? copyButton(t, 'account-copy') : ''}</section>`,
        script: isClabe,
      };
    }
    case 'voucher': {
      const receipt = safeHref(md.receipt_url);
      return {
        html:
          `<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${esc(t.voucherIntro)}</h2>` +
          (md.bar_code ? `${barcode(md.bar_code, `${t.barCode}: ${md.bar_code}`)}<dl>${row(t.barCode, esc(md.bar_code), 'bar_code', true)}</dl>` : '') +
          (md.digitable_line ? `<p>${esc(t.digitableLine)}</p>${codeWithCopy(t, 'voucher-line', 'digitable_line', md.digitable_line)}` : '') +
          (receipt ? `<p><a href="${esc(receipt)}" data-field="receipt_url">${esc(t.openVoucher)}</a></p>` : '') +
          `</section>`,
        script: Boolean(md.digitable_line),
      };
    }
    default:
      return { html: `<section class="card"><p>${esc(t.noInstructions)}</p></section>`, script: false };
  }
}

function summary(l: Loaded, dueLabel: string): string {
  const { t, d, info } = l;
  const reference = info?.metadata?.reference ?? info?.secondary_metadata?.reference ?? depositReference(d.id);
  return (
    `<dl>` +
    row(t.merchant, esc(l.merchantName), 'merchant') +
    (d.description ? row(t.description, esc(d.description), 'description') : '') +
    row(t.reference, esc(reference), 'reference', true) +
    row(dueLabel, timeHtml(l, d.expires_at), 'expiration_date') +
    row(t.status, statusBadge(l), 'status') +
    `</dl>`
  );
}

// ---------------------------------------------------------------------------------------------
// Pages

function payPage(l: Loaded, base: string, nonce: string): string {
  const { t, info, d } = l;
  const exact = info?.amount ?? toPlainString(fromDb(d.payer_amount));
  const currency = info?.currency ?? d.local_currency;
  const how = l.phase === 'payable' ? instructions(l) : { html: phaseNotice(l), script: false };
  const back = returnHref(l, base);
  const body =
    `<section class="card">${methodHeader(l)}<h1>${esc(t.payTitle)}</h1>${amountBlock(t, exact, currency, l.locale)}${summary(l, t.expires)}</section>` +
    how.html +
    (back ? `<p class="noprint"><a class="button secondary" href="${esc(back)}" data-link="return">${esc(t.returnToMerchant)}</a></p>` : '') +
    `<footer>${esc(t.secured)}</footer>`;
  return renderPage({ lang: l.lang, title: `${t.payTitle} · ${l.merchantName}`, body, nonce, script: how.script, refreshSeconds: l.refreshSeconds });
}

function voucherPage(l: Loaded, nonce: string): string {
  const { t, info } = l;
  const md = info?.metadata ?? {};
  const payable = l.phase === 'payable';
  const code = payable
    ? `<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${esc(t.voucherIntro)}</h2>` +
      `${barcode(md.bar_code!, `${t.barCode}: ${md.bar_code}`)}` +
      `<dl>${row(t.barCode, esc(md.bar_code), 'bar_code', true)}` +
      (md.digitable_line ? row(t.digitableLine, esc(md.digitable_line), 'digitable_line', true) : '') +
      `</dl></section>` +
      `<p class="noprint"><button type="button" class="button" hidden data-print>${esc(t.print)}</button></p>`
    : phaseNotice(l);
  const body =
    `<section class="card">${methodHeader(l)}<h1>${esc(t.voucherTitle)}</h1>${amountBlock(t, info!.amount!, info!.currency!, l.locale)}${summary(l, t.due)}</section>` +
    code +
    `<footer>${esc(t.secured)}</footer>`;
  return renderPage({ lang: l.lang, title: `${t.voucherTitle} · ${l.merchantName}`, body, nonce, script: payable, refreshSeconds: l.refreshSeconds });
}

function checkoutPage(l: Loaded, nonce: string): string {
  const { t, d } = l;
  const back = safeHref(d.back_url);
  const body =
    `<section class="card"><h1>${esc(t.checkoutTitle)}</h1>${amountBlock(t, toPlainString(fromDb(d.amount)), d.currency, l.locale)}<dl>` +
    row(t.merchant, esc(l.merchantName), 'merchant') +
    (d.description ? row(t.description, esc(d.description), 'description') : '') +
    row(t.status, statusBadge(l), 'status') +
    `</dl></section>` +
    `<div class="notice unavailable" role="status" data-phase="unavailable"><h2>${esc(t.checkoutUnavailable)}</h2><p>${esc(t.checkoutHint)}</p></div>` +
    (back ? `<p><a class="button secondary" href="${esc(back)}" data-link="back">${esc(t.returnToMerchant)}</a></p>` : '') +
    `<footer>${esc(t.secured)}</footer>`;
  return renderPage({ lang: l.lang, title: `${t.checkoutTitle} · ${l.merchantName}`, body, nonce });
}

function messagePage(lang: Lang, title: string, text: string, nonce: string): string {
  return renderPage({ lang, title, nonce, body: `<section class="card"><h1>${esc(title)}</h1><p>${esc(text)}</p></section>` });
}

// ---------------------------------------------------------------------------------------------
// Routes

type TokenRequest = FastifyRequest<{ Params: { token: string }; Querystring: Record<string, string | undefined> }>;

/** Embedding is allowed only for methods meant to be framed, and only when asked for. */
function frameAncestors(ctx: AppContext, l: Loaded, request: TokenRequest): string | undefined {
  const asked = /^(1|true)$/i.test(request.query.iframe_view ?? '');
  if (!asked || !l.method?.iframe) return undefined;
  // Merchants test on their own machine in staging, as with their other URLs.
  return ctx.config.env === 'production' ? 'https:' : 'https: http://localhost:* http://127.0.0.1:* http://[::1]:*';
}

export function registerCustomerPages(app: FastifyInstance, ctx: AppContext): void {
  const page = (
    path: string,
    render: (l: Loaded, base: string, nonce: string) => string | null,
  ) =>
    app.get(path, { schema: { hide: true } }, async (request: TokenRequest, reply: FastifyReply) => {
      const nonce = newNonce();
      const fallbackLang = langFromAcceptLanguage(request.headers['accept-language']);
      try {
        const l = await load(ctx, request.params.token);
        const html = l ? render(l, ctx.config.publicBaseUrl, nonce) : null;
        if (!l || html === null) {
          const t = strings(l?.lang ?? fallbackLang);
          return sendHtml(reply, messagePage(l?.lang ?? fallbackLang, t.notFoundTitle, t.notFound, nonce), { status: 404, nonce });
        }
        return sendHtml(reply, html, { nonce, frameAncestors: frameAncestors(ctx, l, request) });
      } catch (err) {
        // Never a stack trace to a customer; the log has it.
        request.log.error({ err }, 'customer page failed');
        const t = strings(fallbackLang);
        return sendHtml(reply, messagePage(fallbackLang, t.errorTitle, t.error, nonce), { status: 500, nonce });
      }
    });

  page('/pay/:token', (l, base, nonce) => (l.d.checkout_type === 'ONE_SHOT' ? payPage(l, base, nonce) : null));
  page('/vouchers/:token', (l, base, nonce) =>
    l.d.checkout_type === 'ONE_SHOT' && l.method?.kind === 'voucher' && l.info?.metadata?.bar_code && l.info.amount && l.info.currency
      ? voucherPage(l, nonce)
      : null,
  );
  page('/checkout/:token', (l, _base, nonce) => (l.d.checkout_type === 'HOSTED' ? checkoutPage(l, nonce) : null));
}
