// The pieces every customer page shares (../pay/ and ../checkout/): amounts, the summary, the
// status badge, the page top and end, our own links that keep the language and the embedding.
import { depositReference } from '../../domain/payment-info.ts';
import { formatAmount, formatDateTimeLocal, PAGE_LANGUAGES, type Strings } from '../i18n.ts';
import { EMPTY, html, raw, type SafeHtml } from '../html.ts';
import { safeHref } from '../layout.ts';
import type { Loaded, Phase } from './view-model.ts';

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
