// The panel's API settings: credentials, their rotation and the rotated credentials shown once.
import { can, isCredentialSet, rotateAction } from '../services/roles.ts';
import { html } from '../../web/html.ts';
import { csrfField, fill, fillText } from '../../web/view-helpers.ts';
import type { PanelStrings } from './i18n.ts';
import { type Frame, type Page, frame, field, table, notice, alert } from './frame.ts';

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
