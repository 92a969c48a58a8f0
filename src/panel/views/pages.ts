// The panel's templates: each a pure function of its view model, built with the html`…` tag
// (../html.ts), which escapes every value (merchant- and payer-supplied text included), every word from the panel dictionary. Forms post
// to the panel with the session's CSRF token; nothing here reads the database.
import type { CashoutRow } from '../../cashouts/service.ts';
import type { CashoutChange } from '../../cashouts/list.ts';
import type { DepositRow, StatusChange } from '../../deposits/store.ts';
import type { DepositRefund } from '../../deposits/list.ts';
import type { MerchantBalance } from '../../ledger/ledger.ts';
import type { PaymentMethod } from '../../domain/catalog.ts';
import { type Decimal, toFixed } from '../../domain/money.ts';
import type { AttemptRow, NotificationRow } from '../../notifications/store.ts';
import type { AuditRow } from '../services/audit.ts';
import type { RejectedRow } from '../services/cashout-import.ts';
import type { Movement } from '../services/balance.ts';
import type { SettlementReport } from '../../settlements/service.ts';
import type { HomeStats } from '../services/stats.ts';
import type { TeamMember } from '../services/team.ts';
import { type Action, can, INVITABLE_ROLES, isCredentialSet, rotateAction, type Role } from '../services/roles.ts';
import type { Lang } from '../../web/i18n.ts';
import { html, raw, type SafeHtml } from '../../web/html.ts';
import { csrfField, fill, fillText, when } from '../../web/view-helpers.ts';
import { barChart } from './chart.ts';
import { type PanelStrings, statusText } from './i18n.ts';

export const PANEL_CSS = raw(`
body.panel main{max-width:76rem;padding:1rem 1.25rem}
.ptop{background:#fff;border-bottom:1px solid var(--line)}
.ptop .in{max-width:76rem;margin:0 auto;padding:.5rem 1.25rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.ptop .brand{font-weight:700;color:var(--ink);text-decoration:none}
.env{border-radius:999px;padding:.05rem .6rem;font-size:.8rem;font-weight:700;border:1px solid}
.env.staging{background:#fff8c5;border-color:#d4a72c;color:#3b2300;margin:0}.env.production{background:#dafbe1;border-color:#1a7f37;color:#0b3d1b}
nav.pnav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;margin:0;padding:0}
nav.pnav a{display:inline-block;padding:.3rem .6rem;border-radius:6px;text-decoration:none}
nav.pnav a[aria-current=page]{background:var(--brand);color:#fff}
.who{margin-left:auto;display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;font-size:.9rem;color:var(--muted)}
.who button{font:inherit;background:none;border:0;color:var(--brand);text-decoration:underline;cursor:pointer;padding:0}
.skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:#fff;padding:.5rem;z-index:2}
table{border-collapse:collapse;width:100%;background:#fff;font-size:.92rem}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;white-space:nowrap}
td time{white-space:nowrap}
.wrap{overflow-wrap:anywhere;word-break:break-word}
.url{display:inline-block;min-width:14rem;overflow-wrap:anywhere}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:10px;margin-bottom:1rem}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem .75rem;align-items:flex-end;margin-bottom:1rem}
form.filters .field{margin:0;min-width:9rem;flex:0 1 14rem}
form.filters .field.wide{flex:1 1 20rem}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1rem}
.grid2.charts{grid-template-columns:repeat(auto-fit,minmax(min(100%,26rem),1fr))}
.kpis{display:flex;flex-wrap:wrap;gap:1rem;margin-bottom:1rem}
.kpi{background:#fff;border:1px solid var(--line);border-radius:10px;padding:.75rem 1rem;min-width:12rem}
.kpi b{display:block;font-size:1.4rem}
.ok{border-left:4px solid var(--ok);background:#fff;padding:.6rem .9rem;border-radius:8px;margin-bottom:1rem}
.secret{font-family:ui-monospace,Menlo,Consolas,monospace;background:#fff8c5;padding:.1rem .3rem;border-radius:4px;word-break:break-all}
.chart{display:block;max-width:100%;height:auto}
pre{white-space:pre-wrap;word-break:break-all;background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:.5rem;font-size:.85rem;margin:.25rem 0}
.pager{display:flex;gap:1rem;margin:.5rem 0 1rem}
h1{font-size:1.5rem}
.login{max-width:26rem;margin:3rem auto}
.choices{list-style:none;margin:1rem 0 0;padding:0;display:grid;gap:.5rem}
@media (max-width:40rem){.who{margin-left:0}th,td{padding:.35rem .4rem}}
`);

/** What every signed-in page knows. */
export interface Frame {
  t: PanelStrings;
  lang: Lang;
  env: 'staging' | 'production';
  email: string;
  role: Role;
  merchantName: string;
  csrf: string;
  /** Path and query of this page, for the language links. */
  here: string;
}

export interface Page {
  title: string;
  body: SafeHtml;
  header?: SafeHtml;
  status?: number;
}

const money = (amount: string | Decimal, currency: string) =>
  `${typeof amount === 'string' ? amount : toFixed(amount, 2)} ${currency}`;
const badge = (t: PanelStrings, s: string) => html`<span class="badge ${s}">${statusText(t, s)}</span>`;

function langLinks(lang: Lang, here: string, t: PanelStrings): SafeHtml {
  const link = (l: Lang) => {
    const u = new URL(here, 'http://panel.invalid');
    u.searchParams.set('lang', l);
    return u.pathname + u.search;
  };
  return html`<nav class="langs" aria-label="${t.language}">${(['en', 'es', 'pt'] as Lang[])
    .map((l) => html`<a href="${link(l)}" lang="${l}"${l === lang ? raw(' aria-current="true"') : ''}>${l.toUpperCase()}</a>`)
    }</nav>`;
}

const envBadge = (t: PanelStrings, env: 'staging' | 'production') => html`<span class="env ${env}">${t[env]}</span>`;

const NAV: [string, keyof PanelStrings, Action][] = [
  ['/panel', 'navHome', 'view'], ['/panel/deposits', 'navDeposits', 'view'], ['/panel/cashouts', 'navCashouts', 'view'],
  ['/panel/balance', 'navBalance', 'view'], ['/panel/methods', 'navMethods', 'view'], ['/panel/notifications', 'notifications', 'notifications'],
  ['/panel/settings/api', 'navApi', 'api.view'],
  ['/panel/team', 'navTeam', 'team'], ['/panel/audit', 'navAudit', 'audit'], ['/panel/account', 'navAccount', 'view'],
];

export function frame(f: Frame, current: string, title: string, body: SafeHtml, status?: number): Page {
  const t = f.t;
  const nav = NAV.filter(([, , p]) => can(f.role, p))
    .map(([href, key]) => html`<li><a href="${href}"${href === current ? raw(' aria-current="page"') : ''}>${t[key]}</a></li>`)
    ;
  const header = html`<a class="skip" href="#main">${t.skip}</a><header class="ptop"><div class="in">
<a class="brand" href="/panel">${f.merchantName} · ${t.panel}</a>${envBadge(t, f.env)}
<nav class="pnav" aria-label="${t.navMain}"><ul>${nav}</ul></nav>
<div class="who"><span>${fill(t.signedInAs, { email: f.email, role: t[`role${f.role}` as keyof PanelStrings] })}</span>
<form method="post" action="/panel/logout" class="inline">${csrfField(f)}<button>${t.signOut}</button></form>
<form method="post" action="/panel/logout-everywhere" class="inline">${csrfField(f)}<button>${t.signOutEverywhere}</button></form>
${langLinks(f.lang, f.here, t)}</div></div></header>`;
  return { title: `${title} · ${f.merchantName}`, header, body: html`<h1>${title}</h1>\n${body}`, status };
}

interface FieldOpts {
  type?: string;
  error?: string;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  options?: [string, string][];
  inputmode?: string;
  cls?: string;
}

export function field(name: string, label: string, value: string | undefined, o: FieldOpts = {}): SafeHtml {
  const id = `f-${name}`;
  const described = [o.hint ? `${id}-hint` : '', o.error ? `${id}-err` : ''].filter(Boolean).join(' ');
  const attrs = html`id="${id}" name="${name}"${o.required ? ' required' : ''}${o.error ? raw(' aria-invalid="true"') : ''}${described ? html` aria-describedby="${described}"` : ''}`;
  const control = o.options
    ? html`<select ${attrs}>${o.options.map(([v, l]) => html`<option value="${v}"${v === (value ?? '') ? ' selected' : ''}>${l}</option>`)}</select>`
    : html`<input ${attrs} type="${o.type ?? 'text'}" value="${value ?? ''}"${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}>`;
  return html`<div class="field${o.cls ? ` ${o.cls}` : ''}"><label for="${id}">${label}</label>${control}${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}${o.error ? html`<p class="error" id="${id}-err">${o.error}</p>` : ''}</div>`;
}

function table(label: string, head: string[], rows: unknown[][], numCols: number[] = [], empty?: string): SafeHtml {
  if (rows.length === 0 && empty) return html`<p>${empty}</p>`;
  const th = head.map((h, i) => html`<th scope="col"${numCols.includes(i) ? raw(' class="num"') : ''}>${h}</th>`);
  const body = rows.map((r) => html`<tr>${r.map((c, i) => html`<td${numCols.includes(i) ? raw(' class="num"') : ''}>${c}</td>`)}</tr>`);
  return html`<div class="scroll" role="region" aria-label="${label}" tabindex="0"><table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table></div>`;
}

const ACCOUNT_TYPE_OPTIONS: [string, string][] = [['', '—'], ['CHECKING', 'CHECKING'], ['SAVING', 'SAVING'], ['VISTA', 'VISTA'], ['MASTER', 'MASTER']];
const notice = (text: string | undefined, cls = 'ok') => (text ? html`<p class="${cls}" role="status">${text}</p>` : '');
const alert = (text: string | undefined) => (text ? html`<p class="alert" role="alert">${text}</p>` : '');

function pager(t: PanelStrings, base: string, query: Record<string, string | undefined>, next: number | null, first: boolean): SafeHtml {
  const q = (extra: Record<string, string>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...query, ...extra })) if (v) p.set(k, v);
    const s = p.toString();
    return s ? `${base}?${s}` : base;
  };
  const links = [first ? '' : html`<a href="${q({ before: '' })}">${t.first}</a>`, next ? html`<a href="${q({ before: String(next) })}" rel="next">${t.next}</a>` : ''];
  return html`<nav class="pager" aria-label="${t.next}">${links}</nav>`;
}

function actionButton(f: Frame, action: string, label: string, cls = 'secondary', extra: SafeHtml | string = ''): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">${csrfField(f)}${extra}<button class="button ${cls}">${label}</button></form>`;
}

// ---------------------------------------------------------------- sign-in and messages

export interface BareFrame {
  t: PanelStrings;
  lang: Lang;
  env: 'staging' | 'production';
  here: string;
}

function bare(b: BareFrame, title: string, body: SafeHtml, status?: number): Page {
  const header = html`<header class="ptop"><div class="in"><span class="brand">${b.t.panel}</span>${envBadge(b.t, b.env)}<div class="who">${langLinks(b.lang, b.here, b.t)}</div></div></header>`;
  return { title, header, status, body: html`<div class="login card"><h1>${title}</h1>${body}</div>` };
}

export function loginPage(b: BareFrame, v: { email?: string; error?: string; notice?: string; next?: string; status?: number }): Page {
  const t = b.t;
  return bare(b, t.signInTitle, html`${notice(v.notice)}${alert(v.error)}
<form method="post" action="/panel/login" novalidate>
${v.next ? html`<input type="hidden" name="next" value="${v.next}">` : ''}
${field('email', t.email, v.email, { type: 'email', required: true, autocomplete: 'username' })}
${field('password', t.password, '', { type: 'password', required: true, autocomplete: 'current-password' })}
<button class="button wide">${t.signIn}</button></form>`, v.status);
}

/** After a password that opens the panel of several merchants: one button per merchant. */
export function choosePage(b: BareFrame, v: { options: { key: string; merchant: string; role: Role }[]; next?: string }): Page {
  const t = b.t;
  const buttons = v.options.map((o) => html`<li><form method="post" action="/panel/login/choose">
<input type="hidden" name="account" value="${o.key}">${v.next ? html`<input type="hidden" name="next" value="${v.next}">` : ''}
<button class="button wide">${o.merchant} · ${t[`role${o.role}` as keyof PanelStrings]}</button></form></li>`);
  return bare(b, t.chooseTitle, html`<p>${t.chooseHint}</p><ul class="choices">${buttons}</ul>`);
}

export function codePage(b: BareFrame, csrf: string, v: { error?: string }): Page {
  const t = b.t;
  return bare(b, t.codeTitle, html`${alert(v.error)}<form method="post" action="/panel/login/code" novalidate>
<input type="hidden" name="csrf" value="${csrf}">
${field('code', t.codeLabel, '', { required: true, autocomplete: 'one-time-code', inputmode: 'numeric', hint: t.codeHint })}
<button class="button wide">${t.verify}</button></form>`, v.error ? 401 : undefined);
}

export function messagePage(b: BareFrame, title: string, text: string, status: number, signedIn?: Frame): Page {
  const body = html`<p>${text}</p><p><a href="/panel">${b.t.navHome}</a></p>`;
  return signedIn ? frame(signedIn, '', title, body, status) : bare(b, title, body, status);
}

// ---------------------------------------------------------------- home

export function homePage(f: Frame, v: { stats: HomeStats; balances: MerchantBalance[] }): Page {
  const t = f.t;
  const s = v.stats;
  const created = s.days.reduce((a, d) => a + d.created, 0);
  const completed = s.days.reduce((a, d) => a + d.completed, 0);
  const conversion = created ? `${((completed / created) * 100).toFixed(1)}%` : '—';
  const kpis = html`<div class="kpis">
${v.balances.map((b) => html`<div class="kpi">${t.available} ${b.currency}<b>${money(b.available, b.currency)}</b>${t.reserved}: ${money(b.reserved, b.currency)}</div>`)}
<div class="kpi">${t.conversion}<b>${conversion}</b>${completed} / ${created}</div></div>`;
  const short = (d: string) => d.slice(5);
  const charts = html`<div class="grid2 charts"><section class="card"><h2>${t.chartVolume}</h2>${barChart('c-vol', t.chartVolume, s.days.map((d) => ({ label: short(d.day), value: Number(d.volumeUsd) })))}</section>
<section class="card"><h2>${t.chartCount}</h2>${barChart('c-count', t.chartCount, s.days.map((d) => ({ label: short(d.day), value: d.created })))}</section>
<section class="card"><h2>${t.refundsCount}</h2>${barChart('c-ref', t.refundsCount, s.days.map((d) => ({ label: short(d.day), value: d.refunds })))}</section>
<section class="card"><h2>${t.cashoutsCount}</h2>${barChart('c-co', t.cashoutsCount, s.days.map((d) => ({ label: short(d.day), value: d.cashouts })))}</section></div>`;
  const groupTable = (label: string, rows: HomeStats['byCountry']) =>
    table(label, [label, t.createdCount, t.completedCount, t.convShort, t.volumeUsd], rows.map((g) => [g.key, String(g.created), String(g.completed), g.created ? `${((g.completed / g.created) * 100).toFixed(1)}%` : '—', g.volumeUsd]), [1, 2, 3, 4], t.none);
  const dayTable = table(t.tableOfNumbers, [t.day, t.createdCount, t.completedCount, t.volumeUsd, t.refundsCount, t.cashoutsCount],
    s.days.filter((d) => d.created || d.refunds || d.cashouts).map((d) => [d.day, String(d.created), String(d.completed), d.volumeUsd, String(d.refunds), String(d.cashouts)]), [1, 2, 3, 4, 5], t.none);
  return frame(f, '/panel', t.homeTitle, html`${kpis}${charts}
<div class="grid2"><section><h2>${t.byCountry}</h2>${groupTable(t.country, s.byCountry)}</section><section><h2>${t.byMethod}</h2>${groupTable(t.method, s.byMethod)}</section></div>
<h2>${t.tableOfNumbers}</h2>${dayTable}`);
}

// ---------------------------------------------------------------- deposits

export interface ListQuery {
  [k: string]: string | undefined;
}

export function depositsPage(f: Frame, v: { rows: DepositRow[]; next: number | null; q: ListQuery; countries: string[]; error?: string }): Page {
  const t = f.t;
  const statuses: [string, string][] = [['', t.any], ...['PENDING', 'APPROVED', 'COMPLETED', 'CANCELLED'].map((s): [string, string] => [s, statusText(t, s)])];
  const filters = html`<form class="filters" method="get" action="/panel/deposits" role="search">
${field('q', t.search, v.q.q, { hint: t.depositSearchHint, cls: 'wide', type: 'search' })}
${field('status', t.status, v.q.status, { options: statuses })}
${field('country', t.country, v.q.country, { options: [['', t.any], ...v.countries.map((c): [string, string] => [c, c])] })}
${field('method', t.method, v.q.method)}
${field('from', t.from, v.q.from, { type: 'date' })}${field('to', t.to, v.q.to, { type: 'date' })}
<button class="button">${t.filter}</button><a href="/panel/deposits">${t.clear}</a></form>`;
  const exportQ = new URLSearchParams(Object.entries(v.q).filter(([k, x]) => x && k !== 'before') as [string, string][]).toString();
  const rows = v.rows.map((d) => [
    html`<a href="/panel/deposits/${d.id}">${d.id}</a>`, d.invoice_id, badge(t, d.status), money(d.amount, d.currency), d.country, d.payment_method ?? '',
    d.payer_email ?? '', when(d.created_at),
  ]);
  return frame(f, '/panel/deposits', t.depositsTitle, html`${alert(v.error)}${filters}
<p><a class="button secondary" href="/panel/deposits.csv${exportQ ? `?${exportQ}` : ''}" download>${t.exportCsv}</a></p>
${rows.length ? table(t.depositsTitle, [t.id, t.invoice, t.status, t.amount, t.country, t.method, t.payer, t.created], rows, [3]) : html`<p>${t.none}</p>`}
${pager(t, '/panel/deposits', v.q, v.next, !v.q.before)}`, v.error ? 400 : undefined);
}

export interface DepositView {
  d: DepositRow;
  history: StatusChange[];
  refunds: DepositRefund[];
  notifications: (NotificationRow & { attempts: AttemptRow[] })[];
  methods: PaymentMethod[];
  staging: boolean;
  refundForm?: Record<string, string>;
  refundError?: string;
  done?: string;
}

export function depositPage(f: Frame, v: DepositView): Page {
  const t = f.t;
  const d = v.d;
  const dl = (rows: [string, string | SafeHtml][]) => html`<dl>${rows.filter(([, x]) => x).map(([k, x]) => html`<dt>${k}</dt><dd>${x}</dd>`)}</dl>`;
  const summary = html`<section class="card">${dl([
    [t.status, badge(t, d.status)], [t.invoice, d.invoice_id], [t.amount, money(d.amount, d.currency)],
    [t.localAmount, money(d.local_amount, d.local_currency)], [t.usdAmount, money(d.usd_amount, 'USD')], [t.fee, money(d.fee_local, d.local_currency)],
    [t.payerAmount, money(d.payer_amount, d.local_currency)], [t.refunded, d.refunded_amount !== '0' && d.refunded_amount !== '0.00' ? money(d.refunded_amount, d.currency) : ''],
    [t.returned, Number(d.returned_amount ?? 0) > 0 ? money(d.returned_amount!, d.local_currency) : ''],
    [t.country, d.country], [t.method, d.payment_method ?? ''], [t.payer, [d.payer_name, d.payer_email].filter(Boolean).join(' · ')],
    [t.document, [d.payer_document_type, d.payer_document].filter(Boolean).join(' ')], [t.created, when(d.created_at)],
  ])}</section>`;
  const timeline = table(t.timeline, [t.when, t.status, t.cause, t.actor], v.history.map((h) => [when(h.created_at), badge(t, h.to_status), h.cause, h.actor]));
  let sandbox: SafeHtml | string = '';
  if (v.staging && can(f.role, 'sandbox') && (d.status === 'PENDING' || d.status === 'APPROVED')) {
    const needsMethod = !d.payment_method;
    const methodSelect = needsMethod
      ? field('payment_method', t.approveMethod, v.methods[0]?.code, { options: v.methods.map((m): [string, string] => [m.code, `${m.code} — ${m.name}`]) })
      : '';
    sandbox = html`<section class="card"><h2>${t.sandboxActions}</h2><div class="stack">
<form method="post" action="/panel/deposits/${d.id}/sandbox/approve" class="stack">${csrfField(f)}${methodSelect}<button class="button">${t.approve}</button></form>
${d.status === 'PENDING' ? html`${actionButton(f, `/panel/deposits/${d.id}/sandbox/cancel`, t.cancelDeposit, 'danger')}${actionButton(f, `/panel/deposits/${d.id}/sandbox/expire`, t.expire, 'secondary')}` : ''}
</div></section>`;
  }
  const refundButtons = (r: DepositRefund) =>
    v.staging && r.status === 'PENDING' && can(f.role, 'sandbox')
      ? html`<div class="stack">${actionButton(f, `/panel/refunds/${r.id}/complete`, t.complete)}${actionButton(f, `/panel/refunds/${r.id}/reject`, t.reject, 'danger')}</div>`
      : '';
  const refunds = v.refunds.length
    ? table(t.refunds, [t.id, t.status, t.amount, t.created, t.actions], v.refunds.map((r) => [String(r.id), badge(t, r.status), money(r.amount, r.currency), when(r.created_at), refundButtons(r)]), [2])
    : html`<p>${t.none}</p>`;
  let refundForm: SafeHtml | string = '';
  if (d.status === 'COMPLETED' && can(f.role, 'money')) {
    const r = v.refundForm ?? {};
    const card = d.payment_type === 'CREDIT_CARD' || d.payment_type === 'DEBIT_CARD';
    const bank = card ? '' : html`<p class="hint">${t.bankAccountHint}</p><div class="row2">
${field('beneficiary', t.beneficiary, r.beneficiary ?? d.payer_name ?? '')}${field('bank_code', t.bankCode, r.bank_code)}
${field('branch', t.branch, r.branch)}${field('account_number', t.accountNumber, r.account_number)}
${field('account_type', t.accountType, r.account_type, { options: ACCOUNT_TYPE_OPTIONS })}</div>`;
    refundForm = html`<section class="card"><h2>${t.refundTitle}</h2>${alert(v.refundError)}
<form method="post" action="/panel/deposits/${d.id}/refund">${csrfField(f)}
${field('amount', t.amount, r.amount, { hint: fillText(t.refundHint, { currency: d.currency }), inputmode: 'decimal' })}${bank}
${field('comments', t.comments, r.comments)}
<button class="button">${t.refundButton}</button></form></section>`;
  }
  const notes = v.notifications.length
    ? v.notifications.map((n) => html`<section class="card"><h3>${n.event_type} → <span class="mono">${n.url}</span> ${badge(t, n.status.toUpperCase())}</h3>
${n.attempts.length ? table(t.attempts, ['#', t.when, t.responseCode, t.excerpt], n.attempts.map((a) => [String(a.attempt_no), when(a.started_at), a.status_code ?? a.error ?? '', a.response_excerpt ? html`<pre>${a.response_excerpt}</pre>` : ''])) : html`<p>${t.noAttempts}</p>`}
${can(f.role, 'notifications') ? actionButton(f, `/panel/notifications/${n.id}/resend?deposit=${d.id}`, t.resend) : ''}</section>`)
    : html`<p>${t.none}</p>`;
  return frame(f, '/panel/deposits', fillText(t.depositTitle, { id: d.id }), html`${notice(v.done)}${summary}${sandbox}
<h2>${t.timeline}</h2>${timeline}<h2>${t.refunds}</h2>${refunds}${refundForm}<h2>${t.notifications}</h2>${notes}`, v.refundError ? 422 : undefined);
}

// ---------------------------------------------------------------- cashouts

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

// ---------------------------------------------------------------- balance

export function balancePage(f: Frame, v: { balances: MerchantBalance[]; currency: string; rows: Movement[]; next: number | null; before?: string; reports: SettlementReport[] }): Page {
  const t = f.t;
  const kpis = html`<div class="kpis">${v.balances.map((b) => html`<div class="kpi"><a href="/panel/balance?currency=${b.currency}">${b.currency}</a><b>${money(b.available, b.currency)}</b>${t.reserved}: ${money(b.reserved, b.currency)}</div>`)}${v.balances.length ? '' : html`<p>${t.none}</p>`}</div>`;
  const rows = v.rows.map((m) => [
    when(m.created_at), m.type + (m.pending ? ` (${t.pending})` : ''), `${m.source.type} ${m.source.id}`,
    money(m.amount, m.currency), money(m.reserved, m.currency), money(m.availableAfter, m.currency),
  ]);
  return frame(f, '/panel/balance', t.balanceTitle, html`${kpis}<h2>${t.movements} · ${v.currency}</h2>
<p><a class="button secondary" href="/panel/balance.csv?currency=${v.currency}" download>${t.exportCsv}</a></p>
${rows.length ? table(t.movements, [t.date, t.type, t.source, t.available, t.reserved, t.runningBalance], rows, [3, 4, 5]) : html`<p>${t.none}</p>`}
${pager(t, '/panel/balance', { currency: v.currency, before: v.before }, v.next, !v.before)}
<h2>${t.settlementReports} · ${v.currency}</h2><p class="hint">${fill(t.settlementHelp, { tz: v.reports[0]?.timezone ?? 'UTC' })}</p>
${v.reports.length ? table(t.settlementReports, [t.settlementDay, t.opening, t.closing, t.lines, t.actions], v.reports.map((r) => [
    r.day, money(r.opening.available, r.currency), money(r.closing.available, r.currency), String(r.lineCount),
    html`<a href="/panel/balance/settlements/${r.currency}/${r.day}.csv" download>CSV</a>`,
  ]), [1, 2, 3]) : html`<p>${t.none}</p>`}`);
}

// ---------------------------------------------------------------- settings

export const SET_LABEL: Record<string, keyof PanelStrings> = {
  deposits: 'setDeposits', web_status: 'setWebStatus', cashouts: 'setCashouts', read_only: 'setReadOnly', panel: 'setPanel',
};

export function apiPage(f: Frame, v: {
  logins: { set: string; login: string | null; previousValidUntil: Date | null }[]; urls: { notification_url: string; return_url: string; logo_url: string; frame_origins: string };
  frameOriginsInEffect: string[]; urlErrors: Record<string, string>;
  done?: string; test?: { request: string; status?: number; body?: string; error?: string }; baseUrl: string;
}): Page {
  const t = f.t;
  const creds = table(t.credentialSet, [t.credentialSet, t.login, t.actions], v.logins.map((l) => [
    t[SET_LABEL[l.set]!],
    html`${l.set === 'read_only' ? t.keyHidden : html`<span class="mono">${l.login ?? ''}</span>`}${l.previousValidUntil ? html`<p class="hint">${fill(t.previousUntil, { when: utc(l.previousValidUntil) })}</p>` : ''}`,
    // A set the role may not rotate is not offered (its post answers 403 anyway).
    isCredentialSet(l.set) && can(f.role, rotateAction(l.set)) ? html`<a href="/panel/settings/api/rotate?set=${l.set}">${t.rotate}</a>` : l.set === 'panel' ? t.rotateOwnerOnly : t.rotateNotYours,
  ]));
  const test = v.test
    ? html`<section class="card" aria-live="polite"><h3>${t.testRequest}</h3><pre>${v.test.request}</pre><h3>${t.testResponse}</h3>
${v.test.error ? alert(fillText(t.testFailed, { reason: v.test.error })) : html`<pre>${`${v.test.status}\n\n${v.test.body ?? t.bodyWithheld}`}</pre>`}</section>`
    : '';
  const framingNow = v.frameOriginsInEffect.length ? v.frameOriginsInEffect.join(' ') : t.frameOriginsNone;
  const urlForm = can(f.role, 'settings.edit')
    ? html`<form method="post" action="/panel/settings/urls">${csrfField(f)}
${field('notification_url', t.notificationUrl, v.urls.notification_url, { type: 'url', error: v.urlErrors.notification_url, hint: t.notificationUrlHint })}
${field('return_url', t.returnUrl, v.urls.return_url, { type: 'url', error: v.urlErrors.return_url })}
${field('logo_url', t.logoUrl, v.urls.logo_url, { type: 'url', error: v.urlErrors.logo_url, hint: t.logoUrlHint })}
${field('frame_origins', t.frameOrigins, v.urls.frame_origins, { error: v.urlErrors.frame_origins, hint: t.frameOriginsHint.replace('{current}', framingNow) })}
<button class="button">${t.save}</button></form>`
    : '';
  const testForm = can(f.role, 'notifications')
    ? html`<form method="post" action="/panel/settings/test-notification" class="actions">${csrfField(f)}<button class="button secondary">${t.testNotification}</button></form>`
    : '';
  return frame(f, '/panel/settings/api', t.apiTitle, html`${notice(v.done)}${creds}
<section class="card"><h2>${t.urlsTitle}</h2>${urlForm}
${testForm}</section>${test}
<p><a href="/docs">${t.docs}</a> · <a href="/openapi.json">${t.openapi}</a></p>`, Object.keys(v.urlErrors).length ? 422 : undefined);
}

export function rotateConfirmPage(f: Frame, set: string): Page {
  const t = f.t;
  const name = t[SET_LABEL[set]!];
  return frame(f, '/panel/settings/api', fillText(t.rotateConfirm, { set: name }), html`<p class="alert">${t.rotateWarn}</p>
<form method="post" action="/panel/settings/api/rotate" class="stack">${csrfField(f)}<input type="hidden" name="set" value="${set}">
${set === 'panel' ? '' : field('grace_hours', t.graceHours, '24', {
    options: [['24', fillText(t.graceHoursN, { n: 24 })], ['1', fillText(t.graceHoursN, { n: 1 })], ['72', fillText(t.graceHoursN, { n: 72 })], ['168', t.graceDays], ['0', t.graceAtOnce]],
  })}
<button class="button danger">${t.rotateYes}</button><a href="/panel/settings/api">${t.cancel}</a></form>`);
}

/** A moment as text, `YYYY-MM-DD hh:mm UTC`, for a sentence. */
const utc = (d: Date) => `${d.toISOString().replace('T', ' ').slice(0, 16)} UTC`;

export function rotatedPage(f: Frame, set: string, shown: Record<string, string>, previousValidUntil: Date | null = null): Page {
  const t = f.t;
  return frame(f, '/panel/settings/api', fillText(t.newCredentials, { set: t[SET_LABEL[set]!] }), html`<p class="alert" role="alert">${t.shownOnce}</p>
${previousValidUntil ? html`<p class="hint" role="status">${fill(t.rotatedOverlap, { when: utc(previousValidUntil) })}</p>` : ''}
<section class="card"><dl>${Object.entries(shown).map(([k, x]) => html`<dt>${k}</dt><dd><span class="secret" data-secret="${k}">${x}</span></dd>`)}</dl></section>
<p><a href="/panel/settings/api">${t.apiTitle}</a></p>`);
}

// ---------------------------------------------------------------- team, audit, account, methods

export function teamPage(f: Frame, v: { members: TeamMember[]; invited?: { email: string; password: string }; reset?: boolean; error?: string; email?: string; role?: string; done?: string }): Page {
  const t = f.t;
  const roleName = (r: string) => t[`role${r}` as keyof PanelStrings];
  const rows = v.members.map((m) => [m.email, roleName(m.role), m.totp_enabled ? t.yes : t.no, when(m.created_at),
    m.role === 'owner' ? '' : html`<div class="stack">${actionButton(f, `/panel/team/${m.id}/reset`, t.resetMember)}${actionButton(f, `/panel/team/${m.id}/remove`, t.remove, 'danger')}</div>`]);
  const invited = v.invited
    ? html`<p class="ok" role="status">${fill(v.reset ? t.resetDone : t.invited, { email: v.invited.email })}<span class="secret">${v.invited.password}</span></p>`
    : '';
  return frame(f, '/panel/team', t.teamTitle, html`${invited}${notice(v.done)}${table(t.teamTitle, [t.email, t.role, t.twoFactor, t.created, t.actions], rows)}
<section class="card"><h2>${t.inviteTitle}</h2>${alert(v.error)}<form method="post" action="/panel/team/invite">${csrfField(f)}
<div class="row2">${field('email', t.email, v.email, { type: 'email', required: true })}${field('role', t.role, v.role, { options: INVITABLE_ROLES.map((r): [string, string] => [r, roleName(r)]) })}</div>
<p class="hint">${t.roleHelp}</p><button class="button">${t.invite}</button></form></section>`, v.error ? 422 : undefined);
}

export function auditPage(f: Frame, v: { rows: AuditRow[]; next: number | null; before?: string }): Page {
  const t = f.t;
  const rows = v.rows.map((r) => [when(r.created_at), r.email, r.ip ?? '', r.action, r.subject ?? '', html`<span class="mono wrap">${JSON.stringify(r.detail)}</span>`]);
  return frame(f, '/panel/audit', t.auditTitle, html`${rows.length ? table(t.auditTitle, [t.when, t.who, t.where, t.what, t.id, t.details], rows) : html`<p>${t.none}</p>`}
${pager(t, '/panel/audit', { before: v.before }, v.next, !v.before)}`);
}

export function accountPage(f: Frame, v: { totpEnabled: boolean; totpSecret?: string | null; totpUri?: string; error?: string; done?: string; totpError?: string }): Page {
  const t = f.t;
  const totp = v.totpEnabled
    ? html`<p>${t.totpOn}</p><form method="post" action="/panel/account/totp/disable">${csrfField(f)}${field('password', t.yes2, '', { type: 'password', autocomplete: 'current-password' })}<button class="button danger">${t.totpDisable}</button></form>`
    : v.totpSecret
      ? html`<p>${t.totpScan}</p><p>${t.totpKey}: <span class="secret" id="totp-secret">${v.totpSecret}</span></p><p class="hint mono">${v.totpUri ?? ''}</p>
${alert(v.totpError)}<form method="post" action="/panel/account/totp/confirm">${csrfField(f)}${field('code', t.codeLabel, '', { autocomplete: 'one-time-code', inputmode: 'numeric', error: v.totpError ? t.badCode : undefined })}<button class="button">${t.totpConfirm}</button></form>`
      : html`<p>${t.totpOff}</p>${actionButton(f, '/panel/account/totp/start', t.totpStart, '')}`;
  return frame(f, '/panel/account', t.accountTitle, html`${notice(v.done)}<div class="grid2"><section class="card"><h2>${t.changePassword}</h2>${alert(v.error)}
<form method="post" action="/panel/account/password">${csrfField(f)}
${field('current', t.currentPassword, '', { type: 'password', autocomplete: 'current-password', required: true })}
${field('next', t.newPassword, '', { type: 'password', autocomplete: 'new-password', required: true, hint: t.pwShort })}
${field('confirm', t.confirmPassword, '', { type: 'password', autocomplete: 'new-password', required: true })}
<button class="button">${t.save}</button></form></section><section class="card"><h2>${t.twoFactor}</h2>${totp}</section></div>`, v.error || v.totpError ? 422 : undefined);
}

export function methodsPage(f: Frame, v: { country: string; countries: [string, string][]; methods: PaymentMethod[]; rates: Record<string, string> }): Page {
  const t = f.t;
  const form = html`<form class="filters" method="get" action="/panel/methods">${field('country', t.country, v.country, { options: v.countries })}<button class="button">${t.filter}</button></form>`;
  const rows = v.methods.map((m) => [
    html`<img src="${m.logo}" alt="" width="60" height="24">`, html`<span class="mono">${m.code}</span>`, m.name, m.type, `${m.minAmount} – ${m.maxAmount} ${m.currency}`,
  ]);
  const rates = Object.entries(v.rates).map(([c, r]) => [c, r]);
  return frame(f, '/panel/methods', t.methodsTitle, html`${form}<p class="hint">${fill(t.methodsHint, { country: v.country })}</p>
${table(t.methodsTitle, ['', t.code, t.name, t.paymentType, t.amount], rows)}<h2>${t.rates}</h2>${table(t.rates, [t.currency, t.ratePerUsd], rates, [1])}
<p><a href="/docs">${t.docs}</a> · <a href="/openapi.json">${t.openapi}</a></p>`);
}

export function notificationsPage(f: Frame, v: { rows: (NotificationRow & { attempts: AttemptRow[] })[]; next: number | null; q: ListQuery }): Page {
  const t = f.t;
  const statuses: [string, string][] = [['', t.any], ['pending', t.stPENDING], ['delivered', t.stDELIVERED], ['failed', t.stFAILED]];
  const subject = (key: string) => {
    const [type, id] = key.split(':');
    return type === 'deposit' || type === 'cashout' ? html`<a href="/panel/${type}s/${id}">${key}</a>` : key;
  };
  const rows = v.rows.map((n) => {
    const last = n.attempts[n.attempts.length - 1];
    return [
      String(n.id), when(n.created_at), n.event_type, subject(n.subject_key), html`<span class="mono url">${n.url}</span>`, badge(t, n.status.toUpperCase()),
      String(n.attempts.length), last ? last.status_code ?? last.error ?? '' : '', last?.response_excerpt ? html`<span class="mono wrap">${last.response_excerpt.slice(0, 120)}</span>` : '',
      actionButton(f, `/panel/notifications/${n.id}/resend`, t.resend),
    ];
  });
  return frame(f, '/panel/notifications', t.notifications, html`<form class="filters" method="get" action="/panel/notifications">${field('status', t.status, v.q.status, { options: statuses })}<button class="button">${t.filter}</button></form>
${table(t.notifications, [t.id, t.created, t.type, t.source, t.url, t.status, t.attempts, t.responseCode, t.excerpt, t.actions], rows, [6], t.none)}
${pager(t, '/panel/notifications', v.q, v.next, !v.q.before)}`);
}
