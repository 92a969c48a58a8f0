// The panel's templates: each a pure function of its view model, every value escaped with esc()
// (merchant- and payer-supplied text included), every word from the panel dictionary. Forms post
// to the panel with the session's CSRF token; nothing here reads the database.
import type { CashoutRow } from '../../cashouts/service.ts';
import type { CashoutChange } from '../../cashouts/list.ts';
import type { DepositRow, StatusChange } from '../../deposits/store.ts';
import type { DepositRefund } from '../../deposits/list.ts';
import type { MerchantBalance } from '../../ledger/ledger.ts';
import type { PaymentMethod } from '../../domain/catalog.ts';
import { type Decimal, toFixed } from '../../domain/money.ts';
import type { AttemptRow, NotificationRow } from '../../notifications/store.ts';
import type { AuditRow } from '../../panel/audit.ts';
import type { RejectedRow } from '../../panel/cashout-import.ts';
import type { Movement } from '../../panel/balance.ts';
import type { HomeStats } from '../../panel/stats.ts';
import type { TeamMember } from '../../panel/team.ts';
import { type Action, can, INVITABLE_ROLES, isCredentialSet, rotateAction, type Role } from '../../panel/roles.ts';
import type { Lang } from '../i18n.ts';
import { esc } from '../layout.ts';
import { barChart } from './chart.ts';
import { type PanelStrings, statusText } from './i18n.ts';

export const PANEL_CSS = `
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
`;

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
  body: string;
  header?: string;
  status?: number;
}

const fill = (s: string, v: Record<string, string | number>) => s.replace(/\{(\w+)\}/g, (_, k) => esc(v[k] ?? ''));
export const csrfField = (f: Frame) => `<input type="hidden" name="csrf" value="${esc(f.csrf)}">`;
const money = (amount: string | Decimal, currency: string) =>
  `${esc(typeof amount === 'string' ? amount : toFixed(amount, 2))} ${esc(currency)}`;
const when = (d: Date | null | undefined) => (d ? `<time datetime="${esc(d.toISOString())}">${esc(d.toISOString().replace('T', ' ').slice(0, 19))} UTC</time>` : '');
const badge = (t: PanelStrings, s: string) => `<span class="badge ${esc(s)}">${esc(statusText(t, s))}</span>`;

function langLinks(lang: Lang, here: string, t: PanelStrings): string {
  const link = (l: Lang) => {
    const u = new URL(here, 'http://panel.invalid');
    u.searchParams.set('lang', l);
    return u.pathname + u.search;
  };
  return `<nav class="langs" aria-label="${esc(t.language)}">${(['en', 'es', 'pt'] as Lang[])
    .map((l) => `<a href="${esc(link(l))}" lang="${l}"${l === lang ? ' aria-current="true"' : ''}>${l.toUpperCase()}</a>`)
    .join('')}</nav>`;
}

const envBadge = (t: PanelStrings, env: string) => `<span class="env ${esc(env)}">${esc(env === 'staging' ? t.staging : t.production)}</span>`;

const NAV: [string, keyof PanelStrings, Action][] = [
  ['/panel', 'navHome', 'view'], ['/panel/deposits', 'navDeposits', 'view'], ['/panel/cashouts', 'navCashouts', 'view'],
  ['/panel/balance', 'navBalance', 'view'], ['/panel/methods', 'navMethods', 'view'], ['/panel/notifications', 'notifications', 'notifications'],
  ['/panel/settings/api', 'navApi', 'api.view'],
  ['/panel/team', 'navTeam', 'team'], ['/panel/audit', 'navAudit', 'audit'], ['/panel/account', 'navAccount', 'view'],
];

export function frame(f: Frame, current: string, title: string, body: string, status?: number): Page {
  const t = f.t;
  const nav = NAV.filter(([, , p]) => can(f.role, p))
    .map(([href, key]) => `<li><a href="${href}"${href === current ? ' aria-current="page"' : ''}>${esc(t[key])}</a></li>`)
    .join('');
  const header = `<a class="skip" href="#main">${esc(t.skip)}</a><header class="ptop"><div class="in">
<a class="brand" href="/panel">${esc(f.merchantName)} · ${esc(t.panel)}</a>${envBadge(t, f.env)}
<nav class="pnav" aria-label="${esc(t.navMain)}"><ul>${nav}</ul></nav>
<div class="who"><span>${fill(t.signedInAs, { email: f.email, role: t[`role${f.role}` as keyof PanelStrings] })}</span>
<form method="post" action="/panel/logout" class="inline">${csrfField(f)}<button>${esc(t.signOut)}</button></form>
<form method="post" action="/panel/logout-everywhere" class="inline">${csrfField(f)}<button>${esc(t.signOutEverywhere)}</button></form>
${langLinks(f.lang, f.here, t)}</div></div></header>`;
  return { title: `${title} · ${f.merchantName}`, header, body: `<h1>${esc(title)}</h1>\n${body}`, status };
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

export function field(name: string, label: string, value: string | undefined, o: FieldOpts = {}): string {
  const id = `f-${name}`;
  const described = [o.hint ? `${id}-hint` : '', o.error ? `${id}-err` : ''].filter(Boolean).join(' ');
  const attrs = `id="${id}" name="${esc(name)}"${o.required ? ' required' : ''}${o.error ? ' aria-invalid="true"' : ''}${described ? ` aria-describedby="${described}"` : ''}`;
  const control = o.options
    ? `<select ${attrs}>${o.options.map(([v, l]) => `<option value="${esc(v)}"${v === (value ?? '') ? ' selected' : ''}>${esc(l)}</option>`).join('')}</select>`
    : `<input ${attrs} type="${o.type ?? 'text'}" value="${esc(value ?? '')}"${o.autocomplete ? ` autocomplete="${o.autocomplete}"` : ''}${o.inputmode ? ` inputmode="${o.inputmode}"` : ''}>`;
  return `<div class="field${o.cls ? ` ${o.cls}` : ''}"><label for="${id}">${esc(label)}</label>${control}${o.hint ? `<p class="hint" id="${id}-hint">${esc(o.hint)}</p>` : ''}${o.error ? `<p class="error" id="${id}-err">${esc(o.error)}</p>` : ''}</div>`;
}

function table(label: string, head: string[], rows: string[][], numCols: number[] = [], empty?: string): string {
  if (rows.length === 0 && empty) return `<p>${esc(empty)}</p>`;
  const th = head.map((h, i) => `<th scope="col"${numCols.includes(i) ? ' class="num"' : ''}>${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${numCols.includes(i) ? ' class="num"' : ''}>${c}</td>`).join('')}</tr>`).join('');
  return `<div class="scroll" role="region" aria-label="${esc(label)}" tabindex="0"><table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table></div>`;
}

const ACCOUNT_TYPE_OPTIONS: [string, string][] = [['', '—'], ['CHECKING', 'CHECKING'], ['SAVING', 'SAVING'], ['VISTA', 'VISTA'], ['MASTER', 'MASTER']];
const notice = (text: string | undefined, cls = 'ok') => (text ? `<p class="${cls}" role="status">${esc(text)}</p>` : '');
const alert = (text: string | undefined) => (text ? `<p class="alert" role="alert">${esc(text)}</p>` : '');

function pager(t: PanelStrings, base: string, query: Record<string, string | undefined>, next: number | null, first: boolean): string {
  const q = (extra: Record<string, string>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...query, ...extra })) if (v) p.set(k, v);
    const s = p.toString();
    return s ? `${base}?${s}` : base;
  };
  const links = [first ? '' : `<a href="${esc(q({ before: '' }))}">${esc(t.first)}</a>`, next ? `<a href="${esc(q({ before: String(next) }))}" rel="next">${esc(t.next)}</a>` : ''];
  return `<nav class="pager" aria-label="${esc(t.next)}">${links.join('')}</nav>`;
}

function actionButton(f: Frame, action: string, label: string, cls = 'secondary', extra = ''): string {
  return `<form method="post" action="${esc(action)}" class="inline">${csrfField(f)}${extra}<button class="button ${cls}">${esc(label)}</button></form>`;
}

// ---------------------------------------------------------------- sign-in and messages

export interface BareFrame {
  t: PanelStrings;
  lang: Lang;
  env: 'staging' | 'production';
  here: string;
}

function bare(b: BareFrame, title: string, body: string, status?: number): Page {
  const header = `<header class="ptop"><div class="in"><span class="brand">${esc(b.t.panel)}</span>${envBadge(b.t, b.env)}<div class="who">${langLinks(b.lang, b.here, b.t)}</div></div></header>`;
  return { title, header, status, body: `<div class="login card"><h1>${esc(title)}</h1>${body}</div>` };
}

export function loginPage(b: BareFrame, v: { email?: string; error?: string; notice?: string; next?: string; status?: number }): Page {
  const t = b.t;
  return bare(b, t.signInTitle, `${notice(v.notice)}${alert(v.error)}
<form method="post" action="/panel/login" novalidate>
${v.next ? `<input type="hidden" name="next" value="${esc(v.next)}">` : ''}
${field('email', t.email, v.email, { type: 'email', required: true, autocomplete: 'username' })}
${field('password', t.password, '', { type: 'password', required: true, autocomplete: 'current-password' })}
<button class="button wide">${esc(t.signIn)}</button></form>`, v.status);
}

/** After a password that opens the panel of several merchants: one button per merchant. */
export function choosePage(b: BareFrame, v: { options: { key: string; merchant: string; role: Role }[]; next?: string }): Page {
  const t = b.t;
  const buttons = v.options.map((o) => `<li><form method="post" action="/panel/login/choose">
<input type="hidden" name="account" value="${esc(o.key)}">${v.next ? `<input type="hidden" name="next" value="${esc(v.next)}">` : ''}
<button class="button wide">${esc(o.merchant)} · ${esc(t[`role${o.role}` as keyof PanelStrings])}</button></form></li>`).join('');
  return bare(b, t.chooseTitle, `<p>${esc(t.chooseHint)}</p><ul class="choices">${buttons}</ul>`);
}

export function codePage(b: BareFrame, csrf: string, v: { error?: string }): Page {
  const t = b.t;
  return bare(b, t.codeTitle, `${alert(v.error)}<form method="post" action="/panel/login/code" novalidate>
<input type="hidden" name="csrf" value="${esc(csrf)}">
${field('code', t.codeLabel, '', { required: true, autocomplete: 'one-time-code', inputmode: 'numeric', hint: t.codeHint })}
<button class="button wide">${esc(t.verify)}</button></form>`, v.error ? 401 : undefined);
}

export function messagePage(b: BareFrame, title: string, text: string, status: number, signedIn?: Frame): Page {
  const body = `<p>${esc(text)}</p><p><a href="/panel">${esc(b.t.navHome)}</a></p>`;
  return signedIn ? frame(signedIn, '', title, body, status) : bare(b, title, body, status);
}

// ---------------------------------------------------------------- home

export function homePage(f: Frame, v: { stats: HomeStats; balances: MerchantBalance[] }): Page {
  const t = f.t;
  const s = v.stats;
  const created = s.days.reduce((a, d) => a + d.created, 0);
  const completed = s.days.reduce((a, d) => a + d.completed, 0);
  const conversion = created ? `${((completed / created) * 100).toFixed(1)}%` : '—';
  const kpis = `<div class="kpis">
${v.balances.map((b) => `<div class="kpi">${esc(t.available)} ${esc(b.currency)}<b>${money(b.available, b.currency)}</b>${esc(t.reserved)}: ${money(b.reserved, b.currency)}</div>`).join('')}
<div class="kpi">${esc(t.conversion)}<b>${esc(conversion)}</b>${completed} / ${created}</div></div>`;
  const short = (d: string) => d.slice(5);
  const charts = `<div class="grid2 charts"><section class="card"><h2>${esc(t.chartVolume)}</h2>${barChart('c-vol', t.chartVolume, s.days.map((d) => ({ label: short(d.day), value: Number(d.volumeUsd) })))}</section>
<section class="card"><h2>${esc(t.chartCount)}</h2>${barChart('c-count', t.chartCount, s.days.map((d) => ({ label: short(d.day), value: d.created })))}</section>
<section class="card"><h2>${esc(t.refundsCount)}</h2>${barChart('c-ref', t.refundsCount, s.days.map((d) => ({ label: short(d.day), value: d.refunds })))}</section>
<section class="card"><h2>${esc(t.cashoutsCount)}</h2>${barChart('c-co', t.cashoutsCount, s.days.map((d) => ({ label: short(d.day), value: d.cashouts })))}</section></div>`;
  const groupTable = (label: string, rows: HomeStats['byCountry']) =>
    table(label, [label, t.createdCount, t.completedCount, t.convShort, t.volumeUsd], rows.map((g) => [esc(g.key), String(g.created), String(g.completed), g.created ? `${((g.completed / g.created) * 100).toFixed(1)}%` : '—', esc(g.volumeUsd)]), [1, 2, 3, 4], t.none);
  const dayTable = table(t.tableOfNumbers, [t.day, t.createdCount, t.completedCount, t.volumeUsd, t.refundsCount, t.cashoutsCount],
    s.days.filter((d) => d.created || d.refunds || d.cashouts).map((d) => [esc(d.day), String(d.created), String(d.completed), esc(d.volumeUsd), String(d.refunds), String(d.cashouts)]), [1, 2, 3, 4, 5], t.none);
  return frame(f, '/panel', t.homeTitle, `${kpis}${charts}
<div class="grid2"><section><h2>${esc(t.byCountry)}</h2>${groupTable(t.country, s.byCountry)}</section><section><h2>${esc(t.byMethod)}</h2>${groupTable(t.method, s.byMethod)}</section></div>
<h2>${esc(t.tableOfNumbers)}</h2>${dayTable}`);
}

// ---------------------------------------------------------------- deposits

export interface ListQuery {
  [k: string]: string | undefined;
}

export function depositsPage(f: Frame, v: { rows: DepositRow[]; next: number | null; q: ListQuery; countries: string[]; error?: string }): Page {
  const t = f.t;
  const statuses: [string, string][] = [['', t.any], ...['PENDING', 'APPROVED', 'COMPLETED', 'CANCELLED'].map((s): [string, string] => [s, statusText(t, s)])];
  const filters = `<form class="filters" method="get" action="/panel/deposits" role="search">
${field('q', t.search, v.q.q, { hint: t.depositSearchHint, cls: 'wide', type: 'search' })}
${field('status', t.status, v.q.status, { options: statuses })}
${field('country', t.country, v.q.country, { options: [['', t.any], ...v.countries.map((c): [string, string] => [c, c])] })}
${field('method', t.method, v.q.method)}
${field('from', t.from, v.q.from, { type: 'date' })}${field('to', t.to, v.q.to, { type: 'date' })}
<button class="button">${esc(t.filter)}</button><a href="/panel/deposits">${esc(t.clear)}</a></form>`;
  const exportQ = new URLSearchParams(Object.entries(v.q).filter(([k, x]) => x && k !== 'before') as [string, string][]).toString();
  const rows = v.rows.map((d) => [
    `<a href="/panel/deposits/${d.id}">${d.id}</a>`, esc(d.invoice_id), badge(t, d.status), money(d.amount, d.currency), esc(d.country), esc(d.payment_method ?? ''),
    esc(d.payer_email ?? ''), when(d.created_at),
  ]);
  return frame(f, '/panel/deposits', t.depositsTitle, `${alert(v.error)}${filters}
<p><a class="button secondary" href="/panel/deposits.csv${exportQ ? `?${esc(exportQ)}` : ''}" download>${esc(t.exportCsv)}</a></p>
${rows.length ? table(t.depositsTitle, [t.id, t.invoice, t.status, t.amount, t.country, t.method, t.payer, t.created], rows, [3]) : `<p>${esc(t.none)}</p>`}
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
  const dl = (rows: [string, string][]) => `<dl>${rows.filter(([, x]) => x).map(([k, x]) => `<dt>${esc(k)}</dt><dd>${x}</dd>`).join('')}</dl>`;
  const summary = `<section class="card">${dl([
    [t.status, badge(t, d.status)], [t.invoice, esc(d.invoice_id)], [t.amount, money(d.amount, d.currency)],
    [t.localAmount, money(d.local_amount, d.local_currency)], [t.usdAmount, money(d.usd_amount, 'USD')], [t.fee, money(d.fee_local, d.local_currency)],
    [t.payerAmount, money(d.payer_amount, d.local_currency)], [t.refunded, d.refunded_amount !== '0' && d.refunded_amount !== '0.00' ? money(d.refunded_amount, d.currency) : ''],
    [t.country, esc(d.country)], [t.method, esc(d.payment_method ?? '')], [t.payer, esc([d.payer_name, d.payer_email].filter(Boolean).join(' · '))],
    [t.document, esc([d.payer_document_type, d.payer_document].filter(Boolean).join(' '))], [t.created, when(d.created_at)],
  ])}</section>`;
  const timeline = table(t.timeline, [t.when, t.status, t.cause, t.actor], v.history.map((h) => [when(h.created_at), badge(t, h.to_status), esc(h.cause), esc(h.actor)]));
  let sandbox = '';
  if (v.staging && can(f.role, 'sandbox') && (d.status === 'PENDING' || d.status === 'APPROVED')) {
    const needsMethod = !d.payment_method;
    const methodSelect = needsMethod
      ? field('payment_method', t.approveMethod, v.methods[0]?.code, { options: v.methods.map((m): [string, string] => [m.code, `${m.code} — ${m.name}`]) })
      : '';
    sandbox = `<section class="card"><h2>${esc(t.sandboxActions)}</h2><div class="stack">
<form method="post" action="/panel/deposits/${d.id}/sandbox/approve" class="stack">${csrfField(f)}${methodSelect}<button class="button">${esc(t.approve)}</button></form>
${d.status === 'PENDING' ? actionButton(f, `/panel/deposits/${d.id}/sandbox/cancel`, t.cancelDeposit, 'danger') + actionButton(f, `/panel/deposits/${d.id}/sandbox/expire`, t.expire, 'secondary') : ''}
</div></section>`;
  }
  const refundButtons = (r: DepositRefund) =>
    v.staging && r.status === 'PENDING' && can(f.role, 'sandbox')
      ? `<div class="stack">${actionButton(f, `/panel/refunds/${r.id}/complete`, t.complete)}${actionButton(f, `/panel/refunds/${r.id}/reject`, t.reject, 'danger')}</div>`
      : '';
  const refunds = v.refunds.length
    ? table(t.refunds, [t.id, t.status, t.amount, t.created, t.actions], v.refunds.map((r) => [String(r.id), badge(t, r.status), money(r.amount, r.currency), when(r.created_at), refundButtons(r)]), [2])
    : `<p>${esc(t.none)}</p>`;
  let refundForm = '';
  if (d.status === 'COMPLETED' && can(f.role, 'money')) {
    const r = v.refundForm ?? {};
    const card = d.payment_type === 'CREDIT_CARD' || d.payment_type === 'DEBIT_CARD';
    const bank = card ? '' : `<p class="hint">${esc(t.bankAccountHint)}</p><div class="row2">
${field('beneficiary', t.beneficiary, r.beneficiary ?? d.payer_name ?? '')}${field('bank_code', t.bankCode, r.bank_code)}
${field('branch', t.branch, r.branch)}${field('account_number', t.accountNumber, r.account_number)}
${field('account_type', t.accountType, r.account_type, { options: ACCOUNT_TYPE_OPTIONS })}</div>`;
    refundForm = `<section class="card"><h2>${esc(t.refundTitle)}</h2>${alert(v.refundError)}
<form method="post" action="/panel/deposits/${d.id}/refund">${csrfField(f)}
${field('amount', t.amount, r.amount, { hint: fill(t.refundHint, { currency: d.currency }), inputmode: 'decimal' })}${bank}
${field('comments', t.comments, r.comments)}
<button class="button">${esc(t.refundButton)}</button></form></section>`;
  }
  const notes = v.notifications.length
    ? v.notifications.map((n) => `<section class="card"><h3>${esc(n.event_type)} → <span class="mono">${esc(n.url)}</span> ${badge(t, n.status.toUpperCase())}</h3>
${n.attempts.length ? table(t.attempts, ['#', t.when, t.responseCode, t.excerpt], n.attempts.map((a) => [String(a.attempt_no), when(a.started_at), esc(a.status_code ?? a.error ?? ''), a.response_excerpt ? `<pre>${esc(a.response_excerpt)}</pre>` : ''])) : `<p>${esc(t.noAttempts)}</p>`}
${can(f.role, 'notifications') ? actionButton(f, `/panel/notifications/${n.id}/resend?deposit=${d.id}`, t.resend) : ''}</section>`).join('')
    : `<p>${esc(t.none)}</p>`;
  return frame(f, '/panel/deposits', fill(t.depositTitle, { id: d.id }), `${notice(v.done)}${summary}${sandbox}
<h2>${esc(t.timeline)}</h2>${timeline}<h2>${esc(t.refunds)}</h2>${refunds}${refundForm}<h2>${esc(t.notifications)}</h2>${notes}`, v.refundError ? 422 : undefined);
}

// ---------------------------------------------------------------- cashouts

export function cashoutsPage(f: Frame, v: { rows: CashoutRow[]; next: number | null; q: ListQuery; error?: string; done?: string }): Page {
  const t = f.t;
  const statuses: [string, string][] = [['', t.any], ...['PENDING', 'ON_HOLD', 'DELIVERED', 'COMPLETED', 'CANCELLED', 'REJECTED'].map((s): [string, string] => [s, statusText(t, s)])];
  const filters = `<form class="filters" method="get" action="/panel/cashouts" role="search">
${field('q', t.search, v.q.q, { hint: t.cashoutSearchHint, cls: 'wide', type: 'search' })}
${field('status', t.status, v.q.status, { options: statuses })}${field('country', t.country, v.q.country)}
${field('from', t.from, v.q.from, { type: 'date' })}${field('to', t.to, v.q.to, { type: 'date' })}
<button class="button">${esc(t.filter)}</button><a href="/panel/cashouts">${esc(t.clear)}</a></form>`;
  const exportQ = new URLSearchParams(Object.entries(v.q).filter(([k, x]) => x && k !== 'before') as [string, string][]).toString();
  const rows = v.rows.map((c) => [
    `<a href="/panel/cashouts/${c.id}">${c.id}</a>`, esc(c.external_id), badge(t, c.status), money(c.amount, c.currency), esc(c.country),
    esc([c.beneficiary_name, c.beneficiary_lastname].filter(Boolean).join(' ')), when(c.created_at),
  ]);
  const create = can(f.role, 'money')
    ? `<a class="button" href="/panel/cashouts/new">${esc(t.newCashout)}</a> <a class="button secondary" href="/panel/cashouts/import">${esc(t.uploadCsv)}</a> `
    : '';
  return frame(f, '/panel/cashouts', t.cashoutsTitle, `${notice(v.done)}${alert(v.error)}${filters}
<p class="stack">${create}<a class="button secondary" href="/panel/cashouts.csv${exportQ ? `?${esc(exportQ)}` : ''}" download>${esc(t.exportCsv)}</a></p>
${rows.length ? table(t.cashoutsTitle, [t.id, t.externalId, t.status, t.amount, t.country, t.beneficiary, t.created], rows, [3]) : `<p>${esc(t.none)}</p>`}
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
  const rows: [string, string][] = [
    [t.status, badge(t, c.status)], [t.externalId, esc(c.external_id)], [t.amount, money(c.amount, c.currency)],
    [t.localAmount, money(c.local_amount, c.local_currency)], [t.reservedAmount, money(c.settlement_amount, c.settlement_currency)],
    [t.beneficiary, esc([c.beneficiary_name, c.beneficiary_lastname].filter(Boolean).join(' '))],
    [t.document, esc([c.document_type, c.document_id].filter(Boolean).join(' '))], [t.bank, esc([c.bank_code, c.bank_name].filter(Boolean).join(' · '))],
    [t.account, esc([c.bank_branch, c.bank_account, c.account_type].filter(Boolean).join(' / '))], [t.country, esc(c.country)],
    [t.rejection, esc([c.rejection_code, c.rejection_reason].filter(Boolean).join(' '))], [t.comments, esc(c.comments ?? '')], [t.created, when(c.created_at)],
  ];
  const buttons = Object.entries(CASHOUT_ACTIONS)
    .filter(([, a]) => a.from.includes(c.status) && can(f.role, a.perm) && (!a.staging || v.staging))
    .map(([name, a]) => actionButton(f, `/panel/cashouts/${c.id}/${name}`, t[a.key], a.cls))
    .join('');
  return frame(f, '/panel/cashouts', fill(t.cashoutTitle, { id: c.id }), `${notice(v.done)}${alert(v.error)}
<section class="card"><dl>${rows.filter(([, x]) => x).map(([k, x]) => `<dt>${esc(k)}</dt><dd>${x}</dd>`).join('')}</dl>
${buttons ? `<div class="actions">${buttons}</div>` : ''}</section>
<h2>${esc(t.timeline)}</h2>${table(t.timeline, [t.when, t.status, t.cause, t.actor], v.history.map((h) => [when(h.created_at), badge(t, h.to_status), esc(h.cause), esc(h.actor)]))}`, v.error ? 409 : undefined);
}

export function cashoutFormPage(f: Frame, v: { form: Record<string, string>; errors: string[]; countries: [string, string][] }): Page {
  const t = f.t;
  const r = v.form;
  const errs = v.errors.length ? `<div class="alert" role="alert"><p>${esc(t.fixErrors)}</p><ul>${v.errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></div>` : '';
  return frame(f, '/panel/cashouts', t.newCashout, `${errs}<form method="post" action="/panel/cashouts" class="card">${csrfField(f)}
<div class="row2">${field('external_id', t.externalId, r.external_id, { required: true })}${field('country', t.country, r.country, { options: v.countries, required: true })}
${field('amount', t.amount, r.amount, { required: true, inputmode: 'decimal' })}${field('currency', t.currency, r.currency, { required: true, hint: 'USD / local' })}
${field('beneficiary_name', t.firstName, r.beneficiary_name, { required: true })}${field('beneficiary_lastname', t.lastName, r.beneficiary_lastname)}
${field('document_type', t.documentType, r.document_type)}${field('document_id', t.document, r.document_id, { required: true })}
${field('bank_code', t.bankCode, r.bank_code)}${field('bank_branch', t.branch, r.bank_branch)}
${field('bank_account', t.accountNumber, r.bank_account, { required: true })}${field('account_type', t.accountType, r.account_type, { options: ACCOUNT_TYPE_OPTIONS })}
${field('email', t.email, r.email, { type: 'email' })}${field('phone', t.phone, r.phone, { type: 'tel' })}</div>
${field('comments', t.comments, r.comments)}
<div class="field"><label><input type="checkbox" name="on_hold" value="true"${r.on_hold === 'true' ? ' checked' : ''}> ${esc(t.onHold)}</label></div>
<button class="button">${esc(t.createCashout)}</button></form>`, v.errors.length ? 422 : undefined);
}

export function importPage(f: Frame, v: { columns: readonly string[]; message?: string; error?: string; rejected?: RejectedRow[]; reportHref?: string }): Page {
  const t = f.t;
  const report = v.rejected?.length
    ? `${v.reportHref ? `<p><a class="button secondary" href="${esc(v.reportHref)}" download="rejected-rows.csv">${esc(t.downloadReport)}</a></p>` : ''}
${table(t.reasons, [t.line, t.externalId, t.reasons], v.rejected.map((r) => [String(r.line), esc(r.external_id), esc(r.reasons.join('; '))]))}`
    : '';
  return frame(f, '/panel/cashouts', t.importTitle, `${notice(v.message)}${alert(v.error)}${report}
<form method="post" action="/panel/cashouts/import" enctype="multipart/form-data" class="card">${csrfField(f)}
<p class="hint">${fill(t.importHint, { columns: v.columns.join(', ') })}</p>
${field('file', t.file, undefined, { type: 'file', required: true })}
<button class="button">${esc(t.upload)}</button></form>`, v.error || v.rejected?.length ? 422 : undefined);
}

// ---------------------------------------------------------------- balance

export function balancePage(f: Frame, v: { balances: MerchantBalance[]; currency: string; rows: Movement[]; next: number | null; before?: string }): Page {
  const t = f.t;
  const kpis = `<div class="kpis">${v.balances.map((b) => `<div class="kpi"><a href="/panel/balance?currency=${esc(b.currency)}">${esc(b.currency)}</a><b>${money(b.available, b.currency)}</b>${esc(t.reserved)}: ${money(b.reserved, b.currency)}</div>`).join('') || `<p>${esc(t.none)}</p>`}</div>`;
  const rows = v.rows.map((m) => [
    when(m.created_at), esc(m.type) + (m.pending ? ` (${esc(t.pending)})` : ''), esc(`${m.source.type} ${m.source.id}`),
    money(m.amount, m.currency), money(m.reserved, m.currency), money(m.availableAfter, m.currency),
  ]);
  return frame(f, '/panel/balance', t.balanceTitle, `${kpis}<h2>${esc(t.movements)} · ${esc(v.currency)}</h2>
<p><a class="button secondary" href="/panel/balance.csv?currency=${esc(v.currency)}" download>${esc(t.exportCsv)}</a></p>
${rows.length ? table(t.movements, [t.date, t.type, t.source, t.available, t.reserved, t.runningBalance], rows, [3, 4, 5]) : `<p>${esc(t.none)}</p>`}
${pager(t, '/panel/balance', { currency: v.currency, before: v.before }, v.next, !v.before)}`);
}

// ---------------------------------------------------------------- settings

export const SET_LABEL: Record<string, keyof PanelStrings> = {
  deposits: 'setDeposits', web_status: 'setWebStatus', cashouts: 'setCashouts', read_only: 'setReadOnly', panel: 'setPanel',
};

export function apiPage(f: Frame, v: {
  logins: { set: string; login: string | null }[]; urls: { notification_url: string; return_url: string; logo_url: string; frame_origins: string };
  frameOriginsInEffect: string[]; urlErrors: Record<string, string>;
  done?: string; test?: { request: string; status?: number; body?: string; error?: string }; baseUrl: string;
}): Page {
  const t = f.t;
  const creds = table(t.credentialSet, [t.credentialSet, t.login, t.actions], v.logins.map((l) => [
    esc(t[SET_LABEL[l.set]!]), l.set === 'read_only' ? esc(t.keyHidden) : `<span class="mono">${esc(l.login ?? '')}</span>`,
    // A set the role may not rotate is not offered (its post answers 403 anyway).
    isCredentialSet(l.set) && can(f.role, rotateAction(l.set)) ? `<a href="/panel/settings/api/rotate?set=${esc(l.set)}">${esc(t.rotate)}</a>` : esc(l.set === 'panel' ? t.rotateOwnerOnly : t.rotateNotYours),
  ]));
  const test = v.test
    ? `<section class="card" aria-live="polite"><h3>${esc(t.testRequest)}</h3><pre>${esc(v.test.request)}</pre><h3>${esc(t.testResponse)}</h3>
${v.test.error ? alert(fill(t.testFailed, { reason: v.test.error })) : `<pre>${esc(`${v.test.status}\n\n${v.test.body ?? t.bodyWithheld}`)}</pre>`}</section>`
    : '';
  const framingNow = v.frameOriginsInEffect.length ? v.frameOriginsInEffect.join(' ') : t.frameOriginsNone;
  const urlForm = can(f.role, 'settings.edit')
    ? `<form method="post" action="/panel/settings/urls">${csrfField(f)}
${field('notification_url', t.notificationUrl, v.urls.notification_url, { type: 'url', error: v.urlErrors.notification_url, hint: t.notificationUrlHint })}
${field('return_url', t.returnUrl, v.urls.return_url, { type: 'url', error: v.urlErrors.return_url })}
${field('logo_url', t.logoUrl, v.urls.logo_url, { type: 'url', error: v.urlErrors.logo_url, hint: t.logoUrlHint })}
${field('frame_origins', t.frameOrigins, v.urls.frame_origins, { error: v.urlErrors.frame_origins, hint: t.frameOriginsHint.replace('{current}', framingNow) })}
<button class="button">${esc(t.save)}</button></form>`
    : '';
  const testForm = can(f.role, 'notifications')
    ? `<form method="post" action="/panel/settings/test-notification" class="actions">${csrfField(f)}<button class="button secondary">${esc(t.testNotification)}</button></form>`
    : '';
  return frame(f, '/panel/settings/api', t.apiTitle, `${notice(v.done)}${creds}
<section class="card"><h2>${esc(t.urlsTitle)}</h2>${urlForm}
${testForm}</section>${test}
<p><a href="/docs">${esc(t.docs)}</a> · <a href="/openapi.json">${esc(t.openapi)}</a></p>`, Object.keys(v.urlErrors).length ? 422 : undefined);
}

export function rotateConfirmPage(f: Frame, set: string): Page {
  const t = f.t;
  const name = t[SET_LABEL[set]!];
  return frame(f, '/panel/settings/api', fill(t.rotateConfirm, { set: name }), `<p class="alert">${esc(t.rotateWarn)}</p>
<form method="post" action="/panel/settings/api/rotate" class="stack">${csrfField(f)}<input type="hidden" name="set" value="${esc(set)}">
<button class="button danger">${esc(t.rotateYes)}</button><a href="/panel/settings/api">${esc(t.cancel)}</a></form>`);
}

export function rotatedPage(f: Frame, set: string, shown: Record<string, string>): Page {
  const t = f.t;
  return frame(f, '/panel/settings/api', fill(t.newCredentials, { set: t[SET_LABEL[set]!] }), `<p class="alert" role="alert">${esc(t.shownOnce)}</p>
<section class="card"><dl>${Object.entries(shown).map(([k, x]) => `<dt>${esc(k)}</dt><dd><span class="secret" data-secret="${esc(k)}">${esc(x)}</span></dd>`).join('')}</dl></section>
<p><a href="/panel/settings/api">${esc(t.apiTitle)}</a></p>`);
}

// ---------------------------------------------------------------- team, audit, account, methods

export function teamPage(f: Frame, v: { members: TeamMember[]; invited?: { email: string; password: string }; reset?: boolean; error?: string; email?: string; role?: string; done?: string }): Page {
  const t = f.t;
  const roleName = (r: string) => t[`role${r}` as keyof PanelStrings];
  const rows = v.members.map((m) => [esc(m.email), esc(roleName(m.role)), m.totp_enabled ? esc(t.yes) : esc(t.no), when(m.created_at),
    m.role === 'owner' ? '' : `<div class="stack">${actionButton(f, `/panel/team/${m.id}/reset`, t.resetMember)}${actionButton(f, `/panel/team/${m.id}/remove`, t.remove, 'danger')}</div>`]);
  const invited = v.invited
    ? `<p class="ok" role="status">${fill(v.reset ? t.resetDone : t.invited, { email: v.invited.email })}<span class="secret">${esc(v.invited.password)}</span></p>`
    : '';
  return frame(f, '/panel/team', t.teamTitle, `${invited}${notice(v.done)}${table(t.teamTitle, [t.email, t.role, t.twoFactor, t.created, t.actions], rows)}
<section class="card"><h2>${esc(t.inviteTitle)}</h2>${alert(v.error)}<form method="post" action="/panel/team/invite">${csrfField(f)}
<div class="row2">${field('email', t.email, v.email, { type: 'email', required: true })}${field('role', t.role, v.role, { options: INVITABLE_ROLES.map((r): [string, string] => [r, roleName(r)]) })}</div>
<p class="hint">${esc(t.roleHelp)}</p><button class="button">${esc(t.invite)}</button></form></section>`, v.error ? 422 : undefined);
}

export function auditPage(f: Frame, v: { rows: AuditRow[]; next: number | null; before?: string }): Page {
  const t = f.t;
  const rows = v.rows.map((r) => [when(r.created_at), esc(r.email), esc(r.ip ?? ''), esc(r.action), esc(r.subject ?? ''), `<span class="mono wrap">${esc(JSON.stringify(r.detail))}</span>`]);
  return frame(f, '/panel/audit', t.auditTitle, `${rows.length ? table(t.auditTitle, [t.when, t.who, t.where, t.what, t.id, t.details], rows) : `<p>${esc(t.none)}</p>`}
${pager(t, '/panel/audit', { before: v.before }, v.next, !v.before)}`);
}

export function accountPage(f: Frame, v: { totpEnabled: boolean; totpSecret?: string | null; totpUri?: string; error?: string; done?: string; totpError?: string }): Page {
  const t = f.t;
  const totp = v.totpEnabled
    ? `<p>${esc(t.totpOn)}</p><form method="post" action="/panel/account/totp/disable">${csrfField(f)}${field('password', t.yes2, '', { type: 'password', autocomplete: 'current-password' })}<button class="button danger">${esc(t.totpDisable)}</button></form>`
    : v.totpSecret
      ? `<p>${esc(t.totpScan)}</p><p>${esc(t.totpKey)}: <span class="secret" id="totp-secret">${esc(v.totpSecret)}</span></p><p class="hint mono">${esc(v.totpUri ?? '')}</p>
${alert(v.totpError)}<form method="post" action="/panel/account/totp/confirm">${csrfField(f)}${field('code', t.codeLabel, '', { autocomplete: 'one-time-code', inputmode: 'numeric', error: v.totpError ? t.badCode : undefined })}<button class="button">${esc(t.totpConfirm)}</button></form>`
      : `<p>${esc(t.totpOff)}</p>${actionButton(f, '/panel/account/totp/start', t.totpStart, '')}`;
  return frame(f, '/panel/account', t.accountTitle, `${notice(v.done)}<div class="grid2"><section class="card"><h2>${esc(t.changePassword)}</h2>${alert(v.error)}
<form method="post" action="/panel/account/password">${csrfField(f)}
${field('current', t.currentPassword, '', { type: 'password', autocomplete: 'current-password', required: true })}
${field('next', t.newPassword, '', { type: 'password', autocomplete: 'new-password', required: true, hint: t.pwShort })}
${field('confirm', t.confirmPassword, '', { type: 'password', autocomplete: 'new-password', required: true })}
<button class="button">${esc(t.save)}</button></form></section><section class="card"><h2>${esc(t.twoFactor)}</h2>${totp}</section></div>`, v.error || v.totpError ? 422 : undefined);
}

export function methodsPage(f: Frame, v: { country: string; countries: [string, string][]; methods: PaymentMethod[]; rates: Record<string, string> }): Page {
  const t = f.t;
  const form = `<form class="filters" method="get" action="/panel/methods">${field('country', t.country, v.country, { options: v.countries })}<button class="button">${esc(t.filter)}</button></form>`;
  const rows = v.methods.map((m) => [
    `<img src="${esc(m.logo)}" alt="" width="60" height="24">`, `<span class="mono">${esc(m.code)}</span>`, esc(m.name), esc(m.type), `${esc(m.minAmount)} – ${esc(m.maxAmount)} ${esc(m.currency)}`,
  ]);
  const rates = Object.entries(v.rates).map(([c, r]) => [esc(c), esc(r)]);
  return frame(f, '/panel/methods', t.methodsTitle, `${form}<p class="hint">${fill(t.methodsHint, { country: v.country })}</p>
${table(t.methodsTitle, ['', t.code, t.name, t.paymentType, t.amount], rows)}<h2>${esc(t.rates)}</h2>${table(t.rates, [t.currency, t.ratePerUsd], rates, [1])}
<p><a href="/docs">${esc(t.docs)}</a> · <a href="/openapi.json">${esc(t.openapi)}</a></p>`);
}

export function notificationsPage(f: Frame, v: { rows: (NotificationRow & { attempts: AttemptRow[] })[]; next: number | null; q: ListQuery }): Page {
  const t = f.t;
  const statuses: [string, string][] = [['', t.any], ['pending', t.stPENDING], ['delivered', t.stDELIVERED], ['failed', t.stFAILED]];
  const subject = (key: string) => {
    const [type, id] = key.split(':');
    return type === 'deposit' || type === 'cashout' ? `<a href="/panel/${type}s/${esc(id)}">${esc(key)}</a>` : esc(key);
  };
  const rows = v.rows.map((n) => {
    const last = n.attempts[n.attempts.length - 1];
    return [
      String(n.id), when(n.created_at), esc(n.event_type), subject(n.subject_key), `<span class="mono url">${esc(n.url)}</span>`, badge(t, n.status.toUpperCase()),
      String(n.attempts.length), esc(last ? last.status_code ?? last.error ?? '' : ''), last?.response_excerpt ? `<span class="mono wrap">${esc(last.response_excerpt.slice(0, 120))}</span>` : '',
      actionButton(f, `/panel/notifications/${n.id}/resend`, t.resend),
    ];
  });
  return frame(f, '/panel/notifications', t.notifications, `<form class="filters" method="get" action="/panel/notifications">${field('status', t.status, v.q.status, { options: statuses })}<button class="button">${esc(t.filter)}</button></form>
${table(t.notifications, [t.id, t.created, t.type, t.source, t.url, t.status, t.attempts, t.responseCode, t.excerpt, t.actions], rows, [6], t.none)}
${pager(t, '/panel/notifications', v.q, v.next, !v.q.before)}`);
}
