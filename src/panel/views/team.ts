// The panel's team, audit, account (TOTP), payment methods and notifications pages.
import type { PaymentMethod } from '../../domain/catalog.ts';
import type { AttemptRow, NotificationRow } from '../../notifications/store.ts';
import type { AuditRow } from '../services/audit.ts';
import type { TeamMember } from '../services/team.ts';
import { INVITABLE_ROLES } from '../services/roles.ts';
import { html } from '../../web/html.ts';
import { csrfField, fill, when } from '../../web/view-helpers.ts';
import type { PanelStrings } from './i18n.ts';
import { type Frame, type Page, badge, frame, field, table, notice, alert, pager, actionButton, type ListQuery } from './frame.ts';

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
