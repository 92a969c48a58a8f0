// The operator console's frame: the page shell (navigation, language links, environment badge),
// the small pieces every page uses (notice, alert, button, table) and the bare and message pages.
// Below views.ts and the page modules, which all build on it.
import { canOps, type OpsAction, type OperatorRole } from '../../operators/roles.ts';
import type { Lang } from '../i18n.ts';
import { html, raw, type SafeHtml } from '../html.ts';
import { csrfField, fill, when as whenAt } from '../view-helpers.ts';
import { PANEL_CSS } from '../../panel/views/pages.ts';
import type { OpsStrings } from './i18n.ts';
import { FORM_CSS } from './form-bits.ts';

export const OPS_CSS = html`${PANEL_CSS}${FORM_CSS}`;

export interface BareFrame {
  t: OpsStrings;
  lang: Lang;
  env: 'staging' | 'production';
  here: string;
}

export interface Frame extends BareFrame {
  email: string;
  role: OperatorRole;
  operatorId: number;
  csrf: string;
}

export interface Page {
  title: string;
  body: SafeHtml;
  header?: SafeHtml;
  status?: number;
}

export const when = (d: Date | null | undefined) => whenAt(d, '—');
export const notice = (text: string | undefined) => (text ? html`<p class="ok" role="status">${text}</p>` : '');
export const alert = (text: string | undefined) => (text ? html`<p class="alert" role="alert">${text}</p>` : '');
export const roleName = (t: OpsStrings, r: OperatorRole) => t[`role${r}`];

export function table(label: string, head: string[], rows: unknown[][], numCols: number[] = [], empty?: string): SafeHtml {
  if (rows.length === 0 && empty) return html`<p>${empty}</p>`;
  const th = head.map((h, i) => html`<th scope="col"${numCols.includes(i) ? raw(' class="num"') : ''}>${h}</th>`);
  const body = rows.map((r) => html`<tr>${r.map((c, i) => html`<td${numCols.includes(i) ? raw(' class="num"') : ''}>${c}</td>`)}</tr>`);
  return html`<div class="scroll" role="region" aria-label="${label}" tabindex="0"><table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table></div>`;
}

export function button(f: Frame, action: string, label: string, cls = 'secondary', extra: SafeHtml | string = ''): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">${csrfField(f)}${extra}<button class="button ${cls}">${label}</button></form>`;
}

function langLinks(lang: Lang, here: string, t: OpsStrings): SafeHtml {
  const link = (l: Lang) => {
    const u = new URL(here, 'http://ops.invalid');
    u.searchParams.set('lang', l);
    return u.pathname + u.search;
  };
  return html`<nav class="langs" aria-label="${t.language}">${(['en', 'es', 'pt'] as Lang[]).map(
    (l) => html`<a href="${link(l)}" lang="${l}"${l === lang ? raw(' aria-current="true"') : ''}>${l.toUpperCase()}</a>`,
  )}</nav>`;
}

const envBadge = (t: OpsStrings, env: 'staging' | 'production') => html`<span class="env ${env}">${t[env]}</span>`;

const NAV: [string, keyof OpsStrings, OpsAction][] = [
  ['/ops/merchants', 'navMerchants', 'view'], ['/ops/approvals', 'navApprovals', 'view'], ['/ops/rates', 'navRates', 'view'],
  ['/ops/connectors', 'navConnectors', 'view'], ['/ops/reconciliation', 'navReconciliation', 'view'], ['/ops/audit', 'navAudit', 'view'],
  ['/ops/operators', 'navOperators', 'operators'], ['/ops/account', 'navAccount', 'view'],
];

export function frame(f: Frame, current: string, title: string, body: SafeHtml, status?: number): Page {
  const t = f.t;
  const nav = NAV.filter(([, , a]) => canOps(f.role, a)).map(
    ([href, key]) => html`<li><a href="${href}"${href === current ? raw(' aria-current="page"') : ''}>${t[key]}</a></li>`,
  );
  const header = html`<a class="skip" href="#main">${t.skip}</a><header class="ptop"><div class="in">
<a class="brand" href="/ops">${t.console}</a>${envBadge(t, f.env)}
<nav class="pnav" aria-label="${t.navMain}"><ul>${nav}</ul></nav>
<div class="who"><span>${fill(t.signedInAs, { email: f.email, role: roleName(t, f.role) })}</span>
<form method="post" action="/ops/logout" class="inline">${csrfField(f)}<button>${t.signOut}</button></form>
${langLinks(f.lang, f.here, t)}</div></div></header>`;
  return { title: `${title} · ${t.console}`, header, body: html`<h1>${title}</h1>\n${body}`, status };
}

export function bare(b: BareFrame, title: string, body: SafeHtml, status?: number): Page {
  const header = html`<header class="ptop"><div class="in"><span class="brand">${b.t.console}</span>${envBadge(b.t, b.env)}<div class="who">${langLinks(b.lang, b.here, b.t)}</div></div></header>`;
  return { title: `${title} · ${b.t.console}`, header, status, body: html`<div class="login card"><h1>${title}</h1>${body}</div>` };
}

export function messagePage(b: BareFrame, title: string, text: string, status: number, signedIn?: Frame): Page {
  const body = html`<p>${text}</p><p><a href="/ops">${b.t.console}</a></p>`;
  return signedIn ? frame(signedIn, '', title, body, status) : bare(b, title, body, status);
}

// ---------------------------------------------------------------- sign-in
