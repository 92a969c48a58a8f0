// The panel's pages before a session: sign-in, choosing a merchant, the TOTP code, a message page.
import { type Role } from '../services/roles.ts';
import { html } from '../../web/html.ts';
import type { PanelStrings } from './i18n.ts';
import { type Frame, type Page, frame, field, notice, alert, type BareFrame, bare } from './frame.ts';

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
