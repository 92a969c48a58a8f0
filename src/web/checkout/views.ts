// The hosted checkout's templates: pure functions of the page's view model (Loaded) and of what
// the route adds (the methods on offer, the fields still needed, what the customer typed and why
// it was refused, the form tokens). Every string comes from the i18n tables; every value is
// escaped by the html`…` tag (../html.ts).
import type { PaymentMethod, PayerField } from '../../domain/catalog.ts';
import { PAYMENT_TYPES } from '../../domain/catalog.ts';
import type { CardDetail, CardField, CardProblem } from '../../domain/cards.ts';
import { getCountry } from '../../domain/countries.ts';
import { add, fromDb, percentOf, toPlainString } from '../../domain/money.ts';
import type { FormName } from '../csrf.ts';
import { fill, formatAmount, type Strings } from '../i18n.ts';
import { EMPTY, html, raw, type SafeHtml } from '../html.ts';
import { safeHref } from '../layout.ts';
import type { Loaded } from '../customer/view-model.ts';
import {
  amountBlock, amountLabel, methodHeader, pageEnd, pageLink, pageTop, phaseNotice, returnHref, returnLink, row, stateInputs, statusBadge, summary, timeHtml,
  topTarget,
} from '../customer/fragments.ts';
import type { Rendered } from '../customer/route.ts';

/** The form tokens of this page, computed by the route (templates do no crypto). */
export type Csrf = Record<FormName, SafeHtml>;

const money = (l: Loaded, exact: string, currency: string) => `${currency} ${formatAmount(exact, l.locale)}`;

/** Amount, strikethrough price and bonus as the merchant sent them, description, expiry, status. */
function orderCard(l: Loaded, heading: string, method?: PaymentMethod): SafeHtml {
  const { d, t } = l;
  const amount = toPlainString(fromDb(d.local_amount));
  const asked = toPlainString(fromDb(d.amount));
  const was = d.strikethrough_price ? html`<p class="was">${t.was}: <del data-field="strikethrough_price">${money(l, toPlainString(fromDb(d.strikethrough_price)), d.currency)}</del></p>` : '';
  let bonus = EMPTY;
  if (d.bonus_amount && fromDb(d.bonus_amount).units > 0n) {
    // bonus_relative: a percentage of the amount; display only, it changes no balance.
    const value = d.bonus_relative ? percentOf(fromDb(d.amount), toPlainString(fromDb(d.bonus_amount)), 2) : fromDb(d.bonus_amount);
    const total = toPlainString(add(fromDb(d.amount), value));
    const label = `+${money(l, toPlainString(value), d.currency)}${d.bonus_relative ? ` (${formatAmount(toPlainString(fromDb(d.bonus_amount)), l.locale).replace(/[.,]00$/, '')}%)` : ''}`;
    bonus = html`<p class="bonus"><span>${t.bonus}: </span><span data-field="bonus">${label}</span></p><p class="hint">${fill(t.bonusHint, { amount: money(l, asked, d.currency), total: money(l, total, d.currency) })}</p>`;
  }
  return html`<section class="card">${method ? methodHeader(l, method) : ''}<h1>${heading}</h1>${amountBlock(amountLabel(l), amount, d.local_currency, l.locale)}${
    d.currency !== d.local_currency ? html`<p class="was">${money(l, asked, d.currency)}</p>` : ''}${was}${bonus}${summary(l, t.expires)}</section>`;
}

function cancelForm(l: Loaded, csrf: Csrf, base: string): SafeHtml {
  // Only where there is a merchant to go back to; otherwise the customer simply closes the page.
  if (!returnHref(l, base) && !l.d.back_url) return EMPTY;
  return html`<form method="post" action="/checkout/${l.d.token}/cancel" class="noprint"${topTarget(l)}>${csrf.cancel}${stateInputs(l)}<button type="submit" class="button secondary" data-action="cancel">${l.t.cancelPayment}</button></form>`;
}

function page(l: Loaded, title: string, main: SafeHtml, status?: number): Rendered {
  return { title, status, body: html`${pageTop(l, `/checkout/${l.d.token}`)}${main}${pageEnd(l)}`, script: true };
}

// ---------------------------------------------------------------------------------------------
// Step 1: the methods on offer, grouped by type as the catalog groups them.

export function methodListPage(l: Loaded, methods: PaymentMethod[], csrf: Csrf, base: string, alert?: string): Rendered {
  const { t } = l;
  const groups = PAYMENT_TYPES.map((type) => [type, methods.filter((m) => m.type === type)] as const).filter(([, ms]) => ms.length > 0);
  const list = groups.map(([type, ms]) => {
    const id = `group-${type.toLowerCase()}`;
    const items = ms.map((m) => html`<li><a href="${pageLink(l, `/checkout/${l.d.token}`, { method: m.code })}" data-method="${m.code}"><img src="${m.logo}" alt="" width="60" height="24"><span>${m.name}</span></a></li>`);
    return html`<div class="group" role="group" aria-labelledby="${id}"><h3 id="${id}">${t[`type${type}` as keyof Strings]}</h3><ul class="methods">${items}</ul></div>`;
  });
  return page(
    l,
    t.chooseMethod,
    html`${orderCard(l, t.checkoutTitle)}${alert ? html`<div class="alert" role="alert">${alert}</div>` : ''}<section class="card" aria-labelledby="choose"><h2 id="choose">${t.chooseMethod}</h2>${list}</section>${cancelForm(l, csrf, base)}`,
  );
}

/**
 * No method of the request's types fits this deposit, or the one chosen cannot be set up here
 * (cards in production are captured by the connector's page): the way out is the error_url.
 */
export function noMethodsPage(l: Loaded, title = l.t.noMethods): Rendered {
  const { t, d } = l;
  const out = safeHref(d.error_url) ?? safeHref(d.back_url);
  return page(
    l,
    title,
    html`${orderCard(l, t.checkoutTitle)}<div class="notice unavailable" role="status" data-phase="no_methods"><h2>${title}</h2><p>${t.noMethodsHint}</p></div>${
      out ? html`<p><a class="button secondary" href="${out}"${topTarget(l)} data-link="error">${t.returnToMerchant}</a></p>` : ''}`,
  );
}

/**
 * A next action that goes to the provider's page by POST (a hosted page or a 3-D Secure step that
 * takes a form): the form the customer's browser submits there, with the provider's fields. Its
 * origin is allowed by the page's form-action (src/web/customer/route.ts).
 */
export function providerFormPage(l: Loaded, url: string, data: Record<string, string>): Rendered {
  const { t } = l;
  const fields = Object.entries(data).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  return page(
    l,
    t.checkoutTitle,
    html`${orderCard(l, t.checkoutTitle, l.method)}<form method="post" action="${url}"${topTarget(l)} data-next-action>${fields}<button type="submit" class="button wide">${t.continue}</button></form>`,
  );
}

// ---------------------------------------------------------------------------------------------
// Step 2: the payer fields the chosen method still needs.

const LABELS: Record<PayerField, keyof Strings> = {
  'payer.document': 'fieldDocument',
  'payer.first_name': 'fieldFirstName',
  'payer.last_name': 'fieldLastName',
  'payer.email': 'fieldEmail',
  'payer.phone': 'fieldPhone',
  'payer.address.street': 'fieldStreet',
  'payer.address.city': 'fieldCity',
  'payer.address.state': 'fieldState',
  'payer.address.zip_code': 'fieldZip',
};

const INPUTS: Record<PayerField, string> = {
  'payer.document': 'type="text" autocomplete="off" spellcheck="false"',
  'payer.first_name': 'type="text" autocomplete="given-name"',
  'payer.last_name': 'type="text" autocomplete="family-name"',
  'payer.email': 'type="email" autocomplete="email" spellcheck="false"',
  'payer.phone': 'type="tel" autocomplete="tel"',
  'payer.address.street': 'type="text" autocomplete="address-line1"',
  'payer.address.city': 'type="text" autocomplete="address-level2"',
  'payer.address.state': 'type="text" autocomplete="address-level1"',
  'payer.address.zip_code': 'type="text" autocomplete="postal-code"',
};

/** The API's reason (English, for merchants) as the customer reads it, in the page's language. */
function payerError(t: Strings, field: PayerField, reason: string): string {
  if (reason === 'is required') return t.errRequired;
  if (reason.startsWith('must be at most')) return t.errText;
  switch (field) {
    case 'payer.document': return t.errDocument;
    case 'payer.email': return t.errEmail;
    case 'payer.phone': return t.errPhone;
    case 'payer.address.state': return t.errState;
    case 'payer.address.zip_code': return t.errZip;
    default: return t.errText;
  }
}

function fieldHtml(id: string, label: string, control: (attrs: SafeHtml) => SafeHtml, error: string | undefined): SafeHtml {
  const attrs = html` id="${id}" required${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}`;
  return html`<div class="field"><label for="${id}">${label}</label>${control(attrs)}${
    error ? html`<p class="error" id="${id}-error" data-error-for="${id}">${error}</p>` : ''}</div>`;
}

function payerField(l: Loaded, f: PayerField, value: string, reason: string | undefined): SafeHtml {
  const { t, d } = l;
  const country = getCountry(d.country);
  const id = `f-${f.slice(6).replace(/\./g, '-')}`;
  const label = f === 'payer.document' && country ? `${t.fieldDocument} (${country.documentTypes.join(' / ')})` : t[LABELS[f]];
  const error = reason ? payerError(t, f, reason) : undefined;
  if (f === 'payer.address.state' && country && country.states.length > 0) {
    const options = country.states.map((s) => html`<option value="${s.code}"${s.code === value ? raw(' selected') : ''}>${s.name}</option>`);
    return fieldHtml(id, label, (a) => html`<select name="${f}"${a} autocomplete="address-level1"><option value="">${t.chooseState}</option>${options}</select>`, error);
  }
  return fieldHtml(id, label, (a) => html`<input name="${f}" value="${value}" ${raw(INPUTS[f])}${a}>`, error);
}

export interface DetailsInput {
  method: PaymentMethod;
  needed: PayerField[];
  /** Offer "Choose another method" (the merchant did not fix one, and there is a choice). */
  canChange: boolean;
  values?: Record<string, string | undefined>;
  errors?: Partial<Record<PayerField, string>>;
}

export function detailsPage(l: Loaded, x: DetailsInput, csrf: Csrf, base: string): Rendered {
  const { t, d } = l;
  const errors = x.errors ?? {};
  const failed = Object.keys(errors).length > 0;
  const fields = x.needed.map((f) => payerField(l, f, x.values?.[f] ?? '', errors[f]));
  const hint = fill(x.needed.length > 0 ? t.detailsHint : t.noDetailsHint, { method: x.method.name });
  return page(
    l,
    x.needed.length > 0 ? t.yourDetails : x.method.name,
    html`${orderCard(l, t.checkoutTitle, x.method)}${failed ? html`<div class="alert" role="alert">${t.errorSummary}</div>` : ''}<section class="card" aria-labelledby="details"><h2 id="details">${
      x.needed.length > 0 ? t.yourDetails : x.method.name}</h2><p class="hint">${hint}</p><form method="post" action="/checkout/${d.token}" novalidate>${csrf.method}${stateInputs(l)}<input type="hidden" name="method" value="${x.method.code}">${
      fields}<button type="submit" class="button wide">${t.continue}</button></form>${
      x.canChange ? html`<p><a href="${pageLink(l, `/checkout/${d.token}`)}" data-link="change">${t.changeMethod}</a></p>` : ''}</section>${cancelForm(l, csrf, base)}`,
    failed ? 422 : undefined,
  );
}

// ---------------------------------------------------------------------------------------------
// Cards (staging): the card form and the 3-D Secure-like confirmation.

const CARD_ERRORS: Record<CardProblem, keyof Strings> = {
  required: 'errRequired',
  number_invalid: 'errNumberInvalid',
  brand_mismatch: 'errBrandMismatch',
  expiry_invalid: 'errExpiryInvalid',
  expired: 'errExpired',
  cvc_invalid: 'errCvcInvalid',
  holder_invalid: 'errHolderInvalid',
};

export interface CardFormInput {
  errors?: Partial<Record<CardField, CardProblem>>;
  alert?: string;
  /** Re-shown after an error; the number and the CVC never are. */
  holder?: string;
  expiry?: string;
}

export function cardPage(l: Loaded, x: CardFormInput, csrf: Csrf, base: string): Rendered {
  const { t, d } = l;
  const method = l.method!;
  const err = (f: CardField) => (x.errors?.[f] ? fill(t[CARD_ERRORS[x.errors[f]!]], { method: method.name }) : undefined);
  const failed = !!x.alert || Object.keys(x.errors ?? {}).length > 0;
  const payerName = [d.payer.first_name, d.payer.last_name].filter(Boolean).join(' ');
  const form = html`<form method="post" action="/checkout/${d.token}/card" novalidate>${csrf.card}${stateInputs(l)}${
    fieldHtml('card-number', t.cardNumber, (a) => html`<input name="number" type="text" inputmode="numeric" autocomplete="cc-number" spellcheck="false" maxlength="23" data-card-number="card-brand"${a}>`, err('number'))
    }<p class="hint">${t.cardBrand}: <output id="card-brand" aria-live="polite">${method.name}</output></p><div class="row2">${
    fieldHtml('card-expiry', t.cardExpiry, (a) => html`<input name="expiry" type="text" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" maxlength="7" value="${x.expiry ?? ''}"${a}>`, err('expiry'))}${
    fieldHtml('card-cvc', t.cardCvc, (a) => html`<input name="cvc" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4"${a}>`, err('cvc'))}</div>${
    fieldHtml('card-holder', t.cardHolder, (a) => html`<input name="holder" type="text" autocomplete="cc-name" value="${x.holder ?? payerName}"${a}>`, err('holder'))
    }<button type="submit" class="button wide">${t.payNow}</button></form>`;
  return page(
    l,
    t.cardTitle,
    html`${orderCard(l, t.checkoutTitle, method)}${
      x.alert ? html`<div class="alert" role="alert" data-alert>${x.alert}</div>` : failed ? html`<div class="alert" role="alert">${t.errorSummary}</div>` : ''
    }<section class="card" aria-labelledby="card-title"><h2 id="card-title">${t.cardTitle}</h2>${form}${
      l.staging ? html`<p class="hint" data-test-cards>${t.testCards}</p>` : ''}</section>${cancelForm(l, csrf, base)}`,
    Object.keys(x.errors ?? {}).length > 0 ? 422 : undefined,
  );
}

export function challengePage(l: Loaded, c: CardDetail, csrf: Csrf): Rendered {
  const { t, d } = l;
  return page(
    l,
    t.challengeTitle,
    html`<section class="card" aria-labelledby="challenge">${methodHeader(l)}<h1 id="challenge">${t.challengeTitle}</h1>${
      amountBlock(t.amount, toPlainString(fromDb(d.payer_amount)), d.local_currency, l.locale)}<p>${fill(t.challengeHint, { card: `${c.brand} ${c.masked_card}` })}</p><form method="post" action="/checkout/${d.token}/card/confirm">${csrf.challenge}${stateInputs(l)}<div class="stack"><button type="submit" name="decision" value="approve" class="button">${t.confirmPayment}</button><button type="submit" name="decision" value="reject" class="button danger">${t.rejectPayment}</button></div></form></section>`,
  );
}

// ---------------------------------------------------------------------------------------------
// Paid, cancelled or expired: the final state, nothing left to pay.

export function finalPage(l: Loaded, base: string): Rendered {
  const { t, d } = l;
  const amount = l.info?.amount ?? toPlainString(fromDb(d.payer_amount));
  const card = l.cardDetail ? row(t.paidWith, `${l.cardDetail.brand} ${l.cardDetail.masked_card}`, 'card', true) : '';
  return page(
    l,
    t.checkoutTitle,
    html`<section class="card">${l.method ? methodHeader(l) : ''}<h1>${t.checkoutTitle}</h1>${amountBlock(amountLabel(l), amount, d.local_currency, l.locale)}<dl>${
      d.description ? row(t.description, d.description, 'description') : ''}${card}${
      l.phase === 'completed' || l.phase === 'confirming' ? '' : row(t.expires, timeHtml(l, d.expires_at), 'expiration_date')}${row(t.status, statusBadge(l), 'status')}</dl></section>${
      phaseNotice(l)}${returnLink(l, base)}`,
  );
}
