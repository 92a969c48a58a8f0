// The console's pages and controls for operators' lifecycle (src/operators/lifecycle.ts): the
// actions on each operator of the Operators page (admins), My account (a new password of one's
// own) and the authenticator enrolment after a TOTP reset. Built with the escaping html tag.
import type { Operator } from '../../operators/accounts.ts';
import { PASSWORD_LENGTH } from '../../operators/accounts.ts';
import { html, type SafeHtml } from '../html.ts';
import { fillText } from '../view-helpers.ts';
import { field } from '../../panel/views/pages.ts';
import type { OpsStrings } from './i18n.ts';
import { alert, bare, type BareFrame, button, frame, type Frame, notice, type Page } from './views.ts';

/** Disabled, or waiting to enrol a reset authenticator. */
export function operatorState(t: OpsStrings, o: Operator): string {
  return [o.disabled_at ? t.disabled : '', o.totp_reset_at ? t.totpPending : ''].filter(Boolean).join(', ');
}

/** An admin's buttons for another operator; none for oneself (My account has one's own password). */
export function operatorActions(f: Frame, o: Operator): SafeHtml | string {
  if (o.id === f.operatorId) return '';
  const t = f.t;
  const base = `/ops/operators/${o.id}`;
  return html`<div class="stack">${o.disabled_at ? button(f, `${base}/enable`, t.enable) : button(f, `${base}/disable`, t.disable, 'danger')}${button(f, `${base}/reset-password`, t.resetPassword)}${button(f, `${base}/reset-totp`, t.resetTotp)}</div>`;
}

/** The new password an admin set for another operator, shown once. */
export function passwordResetCard(t: OpsStrings, email: string, password: string): SafeHtml {
  return html`<div class="card"><p class="ok" role="status">${fillText(t.passwordResetOnce, { email })}</p><dl><dt>${t.password}</dt><dd class="secret">${password}</dd></dl></div>`;
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
