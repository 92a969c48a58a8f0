// The panel's cash-outs: the list, one cash-out and its actions, the form and the file import.
import type { CashoutRow } from '../../cashouts/service.ts';
import type { CashoutChange } from '../../cashouts/list.ts';
import type { RejectedRow } from '../services/cashout-import.ts';
import { type Action, can } from '../services/roles.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { csrfField, fill, fillText, when } from '../../web/view-helpers.ts';
import { type PanelStrings, statusText } from './i18n.ts';
import { type Frame, type Page, money, badge, frame, field, table, ACCOUNT_TYPE_OPTIONS, notice, alert, pager, actionButton, type ListQuery } from './frame.ts';

export function cashoutsPage(f: Frame, v: { rows: CashoutRow[]; next: number | null; q: ListQuery; error?: string; done?: string }): Page {
  const t = f.t;
  const statuses: [string, string][] = [['', t.any], ...['PENDING', 'ON_HOLD', 'DELIVERED', 'COMPLETED', 'CANCELLED', 'REJECTED'].map((s): [string, string] => [s, statusText(t, s)])];
  const filters = html`<form class="filters" method="get" action="/panel/cashouts" role="search">
${field('q', t.search, v.q.q, { hint: t.cashoutSearchHint, cls: 'wide', type: 'search' })}
${field('status', t.status, v.q.status, { options: statuses })}${field('country', t.country, v.q.country)}
${field('from', t.from, v.q.from, { type: 'date' })}${field('to', t.to, v.q.to, { type: 'date' })}
<button class="button">${t.filter}</button><a href="/panel/cashouts">${t.clear}</a></form>`;
  const exportQ = new URLSearchParams(Object.entries(v.q).filter(([k, x]) => x && k !== 'before') as [string, string][]).toString();
  const rows = v.rows.map((c) => [
    html`<a href="/panel/cashouts/${c.id}">${c.id}</a>`, c.external_id, badge(t, c.status), money(c.amount, c.currency), c.country,
    [c.beneficiary_name, c.beneficiary_lastname].filter(Boolean).join(' '), when(c.created_at),
  ]);
  const create = can(f.role, 'money')
    ? html`<a class="button" href="/panel/cashouts/new">${t.newCashout}</a> <a class="button secondary" href="/panel/cashouts/import">${t.uploadCsv}</a> `
    : '';
  return frame(f, '/panel/cashouts', t.cashoutsTitle, html`${notice(v.done)}${alert(v.error)}${filters}
<p class="stack">${create}<a class="button secondary" href="/panel/cashouts.csv${exportQ ? `?${exportQ}` : ''}" download>${t.exportCsv}</a></p>
${rows.length ? table(t.cashoutsTitle, [t.id, t.externalId, t.status, t.amount, t.country, t.beneficiary, t.created], rows, [3]) : html`<p>${t.none}</p>`}
${pager(t, '/panel/cashouts', v.q, v.next, !v.q.before)}`, v.error ? 400 : undefined);
}

const CASHOUT_ACTIONS: Record<string, { from: string[]; key: keyof PanelStrings; perm: Action; staging?: boolean; cls: string }> = {
  hold: { from: ['PENDING'], key: 'hold', perm: 'money', cls: 'secondary' },
  release: { from: ['ON_HOLD'], key: 'release', perm: 'money', cls: 'secondary' },
  cancel: { from: ['PENDING', 'ON_HOLD'], key: 'cancelCashout', perm: 'money', cls: 'danger' },
  deliver: { from: ['PENDING'], key: 'deliver', perm: 'sandbox', staging: true, cls: 'secondary' },
  complete: { from: ['DELIVERED'], key: 'complete', perm: 'sandbox', staging: true, cls: 'secondary' },
  reject: { from: ['DELIVERED', 'COMPLETED'], key: 'reject', perm: 'sandbox', staging: true, cls: 'danger' },
};

export function cashoutPage(f: Frame, v: { c: CashoutRow; history: CashoutChange[]; staging: boolean; error?: string; done?: string }): Page {
  const t = f.t;
  const c = v.c;
  const rows: [string, string | SafeHtml][] = [
    [t.status, badge(t, c.status)], [t.externalId, c.external_id], [t.amount, money(c.amount, c.currency)],
    [t.localAmount, money(c.local_amount, c.local_currency)], [t.reservedAmount, money(c.settlement_amount, c.settlement_currency)],
    [t.beneficiary, [c.beneficiary_name, c.beneficiary_lastname].filter(Boolean).join(' ')],
    [t.document, [c.document_type, c.document_id].filter(Boolean).join(' ')], [t.bank, [c.bank_code, c.bank_name].filter(Boolean).join(' · ')],
    [t.account, [c.bank_branch, c.bank_account, c.account_type].filter(Boolean).join(' / ')], [t.country, c.country],
    [t.rejection, [c.rejection_code, c.rejection_reason].filter(Boolean).join(' ')], [t.comments, c.comments ?? ''], [t.created, when(c.created_at)],
  ];
  const buttons = Object.entries(CASHOUT_ACTIONS)
    .filter(([, a]) => a.from.includes(c.status) && can(f.role, a.perm) && (!a.staging || v.staging))
    .map(([name, a]) => actionButton(f, `/panel/cashouts/${c.id}/${name}`, t[a.key], a.cls))
    ;
  return frame(f, '/panel/cashouts', fillText(t.cashoutTitle, { id: c.id }), html`${notice(v.done)}${alert(v.error)}
<section class="card"><dl>${rows.filter(([, x]) => x).map(([k, x]) => html`<dt>${k}</dt><dd>${x}</dd>`)}</dl>
${buttons ? html`<div class="actions">${buttons}</div>` : ''}</section>
<h2>${t.timeline}</h2>${table(t.timeline, [t.when, t.status, t.cause, t.actor], v.history.map((h) => [when(h.created_at), badge(t, h.to_status), h.cause, h.actor]))}`, v.error ? 409 : undefined);
}

export function cashoutFormPage(f: Frame, v: { form: Record<string, string>; errors: string[]; countries: [string, string][] }): Page {
  const t = f.t;
  const r = v.form;
  const errs = v.errors.length ? html`<div class="alert" role="alert"><p>${t.fixErrors}</p><ul>${v.errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : '';
  return frame(f, '/panel/cashouts', t.newCashout, html`${errs}<form method="post" action="/panel/cashouts" class="card">${csrfField(f)}
<div class="row2">${field('external_id', t.externalId, r.external_id, { required: true })}${field('country', t.country, r.country, { options: v.countries, required: true })}
${field('amount', t.amount, r.amount, { required: true, inputmode: 'decimal' })}${field('currency', t.currency, r.currency, { required: true, hint: 'USD / local' })}
${field('beneficiary_name', t.firstName, r.beneficiary_name, { required: true })}${field('beneficiary_lastname', t.lastName, r.beneficiary_lastname)}
${field('document_type', t.documentType, r.document_type)}${field('document_id', t.document, r.document_id, { required: true })}
${field('bank_code', t.bankCode, r.bank_code)}${field('bank_branch', t.branch, r.bank_branch)}
${field('bank_account', t.accountNumber, r.bank_account, { required: true })}${field('account_type', t.accountType, r.account_type, { options: ACCOUNT_TYPE_OPTIONS })}
${field('email', t.email, r.email, { type: 'email' })}${field('phone', t.phone, r.phone, { type: 'tel' })}</div>
${field('comments', t.comments, r.comments)}
<div class="field"><label><input type="checkbox" name="on_hold" value="true"${r.on_hold === 'true' ? ' checked' : ''}> ${t.onHold}</label></div>
<button class="button">${t.createCashout}</button></form>`, v.errors.length ? 422 : undefined);
}

export function importPage(f: Frame, v: { columns: readonly string[]; message?: string; error?: string; rejected?: RejectedRow[]; reportHref?: string }): Page {
  const t = f.t;
  const report = v.rejected?.length
    ? html`${v.reportHref ? html`<p><a class="button secondary" href="${v.reportHref}" download="rejected-rows.csv">${t.downloadReport}</a></p>` : ''}
${table(t.reasons, [t.line, t.externalId, t.reasons], v.rejected.map((r) => [String(r.line), r.external_id, r.reasons.join('; ')]))}`
    : '';
  return frame(f, '/panel/cashouts', t.importTitle, html`${notice(v.message)}${alert(v.error)}${report}
<form method="post" action="/panel/cashouts/import" enctype="multipart/form-data" class="card">${csrfField(f)}
<p class="hint">${fill(t.importHint, { columns: v.columns.join(', ') })}</p>
${field('file', t.file, undefined, { type: 'file', required: true })}
<button class="button">${t.upload}</button></form>`, v.error || v.rejected?.length ? 422 : undefined);
}
