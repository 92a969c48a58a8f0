// The console's pages and controls for operators' lifecycle (src/operators/lifecycle.ts): the
// actions on each operator of the Operators page (admins), My account (a new password of one's
// own) and the authenticator enrolment after a TOTP reset. Built with the escaping html tag.
import type { Operator } from '../../operators/accounts.ts';
import { PASSWORD_LENGTH } from '../../operators/accounts.ts';
import { html, type SafeHtml } from '../html.ts';
import { fillText } from '../view-helpers.ts';
import { field } from '../../panel/views/pages.ts';
import type { OpsStrings } from './i18n.ts';
import { alert, bare, type BareFrame, button, frame, type Frame, notice, type Page } from './frame.ts';

/** Disabled, waiting to enrol through their link (or its link expired), or to enrol a reset authenticator. */
export function operatorState(t: OpsStrings, o: Operator, now: Date): string {
  const enrolment = o.enrolment_expires_at ? (o.enrolment_expires_at.getTime() > now.getTime() ? t.enrolPending : t.enrolExpired) : '';
  return [o.disabled_at ? t.disabled : '', enrolment, o.totp_reset_at ? t.totpPending : ''].filter(Boolean).join(', ');
}

/** An admin's buttons for another operator; none for oneself (My account has one's own password). */
export function operatorActions(f: Frame, o: Operator): SafeHtml | string {
  if (o.id === f.operatorId) return '';
  const t = f.t;
  const base = `/ops/operators/${o.id}`;
  return html`<div class="stack">${o.disabled_at ? button(f, `${base}/enable`, t.enable) : button(f, `${base}/disable`, t.disable, 'danger')}${button(f, `${base}/reset`, t.resetOperator)}</div>`;
}

/** When a link stops working, as the console writes times. */
export const untilText = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The one-time enrolment link of an operator just made or reset, for the admin to hand over: the
 * only thing the admin is shown (never a password nor an authenticator secret).
 */
export function enrolmentLinkCard(text: string, link: string): SafeHtml {
  return html`<div class="card"><p class="ok" role="status">${text}</p><p class="secret"><a href="${link}">${link}</a></p></div>`;
}

/**
 * The page of an enrolment link (/ops/enrol/<token>): a new authenticator secret shown this once,
 * the password chosen twice, and a code of the secret. A refused link says why, and shows nothing.
 */
export function enrolLinkPage(b: BareFrame, v: { action: string; opened?: { email: string; role: string; until: string; secret: string; uri: string }; error?: string; status?: number }): Page {
  const t = b.t;
  if (!v.opened) return bare(b, t.enrolLinkTitle, html`${alert(v.error)}<p><a href="/ops/login">${t.signInTitle}</a></p>`, v.status);
  const o = v.opened;
  return bare(b, t.enrolLinkTitle, html`${alert(v.error)}<p>${fillText(t.enrolLinkIntro, { email: o.email, role: o.role, until: o.until })}</p>
<dl><dt>${t.totpSecret}</dt><dd class="secret">${o.secret}</dd><dt>otpauth</dt><dd class="secret">${o.uri}</dd></dl>
<form method="post" action="${v.action}">
${field('password', t.newPassword, '', { type: 'password', required: true, autocomplete: 'new-password', hint: fillText(t.newPasswordHint, { min: PASSWORD_LENGTH }) })}
${field('again', t.repeatPassword, '', { type: 'password', required: true, autocomplete: 'new-password' })}
${field('code', t.code, '', { required: true, autocomplete: 'one-time-code', inputmode: 'numeric', hint: t.codeHint })}
<button class="button wide">${t.enrolLinkSubmit}</button></form>`, v.status);
}

export function accountPage(f: Frame, v: { notice?: string; error?: string; status?: number }): Page {
  const t = f.t;
  return frame(f, '/ops/account', t.accountTitle, html`${alert(v.error)}${notice(v.notice)}
<h2>${t.changePassword}</h2><form method="post" action="/ops/account/password" class="card">
<input type="hidden" name="csrf" value="${f.csrf}">
${field('current', t.currentPassword, '', { type: 'password', required: true, autocomplete: 'current-password' })}
${field('next', t.newPassword, '', { type: 'password', required: true, autocomplete: 'new-password', hint: fillText(t.newPasswordHint, { min: PASSWORD_LENGTH }) })}
${field('again', t.repeatPassword, '', { type: 'password', required: true, autocomplete: 'new-password' })}
${field('code', t.codeNow, '', { required: true, autocomplete: 'one-time-code', inputmode: 'numeric', hint: t.codeHint })}
<button class="button">${t.savePassword}</button></form>`, v.status);
}

/**
 * The code step after an admin reset the operator's TOTP: a new secret, shown this once, and the
 * code that confirms it. After a wrong code the secret is not shown again: a new one is offered.
 */
export function enrolPage(b: BareFrame, v: { csrf: string; secret?: { secret: string; uri: string }; error?: string; status?: number }): Page {
  const t = b.t;
  const shown = v.secret
    ? html`<p>${t.enrolIntro}</p><dl><dt>${t.totpSecret}</dt><dd class="secret">${v.secret.secret}</dd><dt>otpauth</dt><dd class="secret">${v.secret.uri}</dd></dl>`
    : html`<p><a href="/ops/login/code">${t.enrolAgain}</a></p>`;
  return bare(b, t.enrolTitle, html`${alert(v.error)}${shown}<form method="post" action="/ops/login/code"><input type="hidden" name="csrf" value="${v.csrf}">
${field('code', t.code, '', { required: true, autocomplete: 'one-time-code', inputmode: 'numeric', hint: t.codeHint })}
<button class="button wide">${t.verify}</button></form>`, v.status);
}
