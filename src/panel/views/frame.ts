// The panel's page frame: its CSS, the signed-in header and navigation, and the pieces every
// area's templates share (fields, tables, pager, notices, action buttons).
import { type Decimal, toFixed } from '../../domain/money.ts';
import { type Action, can, type Role } from '../services/roles.ts';
import type { Lang } from '../../web/i18n.ts';
import { html, raw, type SafeHtml } from '../../web/html.ts';
import { csrfField, fill } from '../../web/view-helpers.ts';
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

export const money = (amount: string | Decimal, currency: string) =>
  `${typeof amount === 'string' ? amount : toFixed(amount, 2)} ${currency}`;
export const badge = (t: PanelStrings, s: string) => html`<span class="badge ${s}">${statusText(t, s)}</span>`;

export function langLinks(lang: Lang, here: string, t: PanelStrings): SafeHtml {
  const link = (l: Lang) => {
    const u = new URL(here, 'http://panel.invalid');
    u.searchParams.set('lang', l);
    return u.pathname + u.search;
  };
  return html`<nav class="langs" aria-label="${t.language}">${(['en', 'es', 'pt'] as Lang[])
    .map((l) => html`<a href="${link(l)}" lang="${l}"${l === lang ? raw(' aria-current="true"') : ''}>${l.toUpperCase()}</a>`)
    }</nav>`;
}

export const envBadge = (t: PanelStrings, env: 'staging' | 'production') => html`<span class="env ${env}">${t[env]}</span>`;

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

export interface FieldOpts {
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

export function table(label: string, head: string[], rows: unknown[][], numCols: number[] = [], empty?: string): SafeHtml {
  if (rows.length === 0 && empty) return html`<p>${empty}</p>`;
  const th = head.map((h, i) => html`<th scope="col"${numCols.includes(i) ? raw(' class="num"') : ''}>${h}</th>`);
  const body = rows.map((r) => html`<tr>${r.map((c, i) => html`<td${numCols.includes(i) ? raw(' class="num"') : ''}>${c}</td>`)}</tr>`);
  return html`<div class="scroll" role="region" aria-label="${label}" tabindex="0"><table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table></div>`;
}

export const ACCOUNT_TYPE_OPTIONS: [string, string][] = [['', '—'], ['CHECKING', 'CHECKING'], ['SAVING', 'SAVING'], ['VISTA', 'VISTA'], ['MASTER', 'MASTER']];
export const notice = (text: string | undefined, cls = 'ok') => (text ? html`<p class="${cls}" role="status">${text}</p>` : '');
export const alert = (text: string | undefined) => (text ? html`<p class="alert" role="alert">${text}</p>` : '');

export function pager(t: PanelStrings, base: string, query: Record<string, string | undefined>, next: number | null, first: boolean): SafeHtml {
  const q = (extra: Record<string, string>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...query, ...extra })) if (v) p.set(k, v);
    const s = p.toString();
    return s ? `${base}?${s}` : base;
  };
  const links = [first ? '' : html`<a href="${q({ before: '' })}">${t.first}</a>`, next ? html`<a href="${q({ before: String(next) })}" rel="next">${t.next}</a>` : ''];
  return html`<nav class="pager" aria-label="${t.next}">${links}</nav>`;
}

export function actionButton(f: Frame, action: string, label: string, cls = 'secondary', extra: SafeHtml | string = ''): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">${csrfField(f)}${extra}<button class="button ${cls}">${label}</button></form>`;
}

export interface BareFrame {
  t: PanelStrings;
  lang: Lang;
  env: 'staging' | 'production';
  here: string;
}

export function bare(b: BareFrame, title: string, body: SafeHtml, status?: number): Page {
  const header = html`<header class="ptop"><div class="in"><span class="brand">${b.t.panel}</span>${envBadge(b.t, b.env)}<div class="who">${langLinks(b.lang, b.here, b.t)}</div></div></header>`;
  return { title, header, status, body: html`<div class="login card"><h1>${title}</h1>${body}</div>` };
}

export interface ListQuery {
  [k: string]: string | undefined;
}
