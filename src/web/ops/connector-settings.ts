// The console's connector configuration (/ops/connectors/{name}, admin role): one form per kind,
// built from the fields it declares (src/connectors/kind.ts), for what PUT /admin/connectors/… takes, through src/connectors/configure.ts (the same
// validators and store, the operator's audit row in the save's transaction). Secret fields are
// write-only: always empty on the page, "leave empty to keep" what is stored.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { configurableConnector, configurableConnectors, configureConnector, type ConfigurableConnector, connectorSettings, ownAccounts, setOwnAccount } from '../../connectors/configure.ts';
import { OWN_ACCOUNTS_CONNECTOR } from '../../connectors/own-accounts.ts';
import type { OwnAccount } from '../../domain/own-accounts.ts';
import { actorOf } from '../../operators/auth.ts';
import { canOps } from '../../operators/roles.ts';
import { field } from '../../panel/views/pages.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, fillText } from '../view-helpers.ts';
import { area, errorsByField } from './form-bits.ts';
import type { OpsRouteOf } from './route-types.ts';
import * as V from './frame.ts';

const OWN_FIELDS = ['country', 'method', 'beneficiary_name', 'agency', 'account', 'document'] as const;

/** On the connectors page: where an admin configures each one. */
export function connectorLinks(f: V.Frame): SafeHtml {
  if (!canOps(f.role, 'connectors')) return html``;
  const t = f.t;
  const links = [...configurableConnectors().map((c) => [c.name, c.label]), [OWN_ACCOUNTS_CONNECTOR, t.connOwnAccounts]].map(
    ([name, label]) => html`<li><a href="/ops/connectors/${name}">${fillText(t.connConfigure, { name: label! })}</a></li>`,
  );
  return html`<section class="card"><h2>${t.connSettings}</h2><p class="hint">${t.connSettingsHint}</p><ul>${links}</ul></section>`;
}

interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
  error?: string;
  notice?: string;
}

function connectorPage(f: V.Frame, c: ConfigurableConnector, stored: { settings: Record<string, string>; updatedAt: Date } | null, s: FormState, status?: number): V.Page {
  const t = f.t;
  // An optional secret is set when the kind's settings say so (`{name}_set`); a required one whenever configured.
  const secretSet = (x: { name: string; optional?: boolean }) => stored !== null && (!x.optional || stored.settings[`${x.name}_set`] === 'true');
  const boxes = c.settings.fields.map((x) => {
    const hint = x.secret && secretSet(x) ? t.connSecretSet : x.optional ? t.connOptional : x.secret ? t.connSecretUnset : undefined;
    const value = x.secret ? '' : s.values[x.name] ?? '';
    const o = { hint, error: s.errors[x.name] };
    if (x.multiline) return area(x.name, x.name, value, o);
    return field(x.name, x.name, value, { ...o, type: x.secret ? 'password' : 'text', autocomplete: x.secret ? 'new-password' : 'off' });
  });
  const state = stored ? fillText(t.connUpdated, { at: stored.updatedAt.toISOString().slice(0, 16).replace('T', ' ') }) : t.connNotConfigured;
  return V.frame(f, '/ops/connectors', fillText(t.connConfigure, { name: c.label }), html`${s.notice ? html`<p class="ok" role="status">${s.notice}</p>` : ''}${s.error ? html`<p class="alert" role="alert">${s.error}</p>` : ''}
<p><a href="/ops/connectors">${t.navConnectors}</a> · ${state}</p><p class="hint">${t.connWriteOnly}</p>
<form method="post" action="/ops/connectors/${c.name}" class="card" novalidate>${csrfField(f)}${boxes}<button class="button">${t.save}</button></form>`, status);
}

function ownAccountsPage(f: V.Frame, accounts: OwnAccount[], s: FormState, status?: number): V.Page {
  const t = f.t;
  const rows = accounts.map((a) => html`<tr><td>${a.country}</td><td>${a.method}</td><td>${a.beneficiary_name}</td><td>${a.agency ?? '—'}</td><td class="wrap">${a.account}</td><td>${a.document ?? '—'}</td>
<td><form method="post" action="/ops/connectors/own_accounts/remove" class="inline">${csrfField(f)}<input type="hidden" name="country" value="${a.country}"><input type="hidden" name="method" value="${a.method}"><button class="button danger">${fillText(t.connRemove, { pair: `${a.country} ${a.method}` })}</button></form></td></tr>`);
  const head = [t.country, t.method, 'beneficiary_name', 'agency', 'account', 'document', t.action].map((h) => html`<th scope="col">${h}</th>`);
  const list = accounts.length
    ? html`<div class="scroll" role="region" aria-label="${t.connOwnAccounts}" tabindex="0"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>${t.connNotConfigured}</p>`;
  const box = (name: (typeof OWN_FIELDS)[number], label: string, hint?: string) => field(name, label, s.values[name] ?? '', { error: s.errors[name], hint, required: !hint });
  return V.frame(f, '/ops/connectors', t.connOwnAccounts, html`${s.notice ? html`<p class="ok" role="status">${s.notice}</p>` : ''}${s.error ? html`<p class="alert" role="alert">${s.error}</p>` : ''}
<p><a href="/ops/connectors">${t.navConnectors}</a></p><p class="hint">${t.connOwnHint}</p>${list}
<form method="post" action="/ops/connectors/own_accounts" class="card" novalidate><h2>${t.connOwnSet}</h2>${csrfField(f)}
<div class="row2">${box('country', t.country)}${box('method', t.method)}</div>${box('beneficiary_name', 'beneficiary_name')}
<div class="row2">${box('agency', 'agency', t.connAgencyHint)}${box('account', 'account')}</div>${box('document', 'document', t.connDocumentHint)}
<button class="button">${t.save}</button></form>`, status);
}

const given = (body: Record<string, string | undefined>, names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n, typeof body[n] === 'string' ? body[n]!.replace(/\r\n/g, '\n').trim().slice(0, 20_000) : '']));

export function registerOpsConnectorSettings(app: FastifyInstance, ctx: AppContext, opsRoute: OpsRouteOf): void {
  const notFound = (f: V.Frame) => V.messagePage(f, f.t.notFoundTitle, f.t.notFound, 404, f);

  app.get('/ops/connectors/own_accounts', opsRoute('connectors', async (c) =>
    ownAccountsPage(c.f, await ownAccounts(ctx), { values: {}, errors: {}, notice: c.query.done === 'saved' ? c.f.t.saved : undefined })));

  for (const removing of [false, true]) {
    app.post(`/ops/connectors/own_accounts${removing ? '/remove' : ''}`, opsRoute('connectors', async (c) => {
      const values = given(c.body, OWN_FIELDS);
      const account = removing ? null : Object.fromEntries(Object.entries(values).filter(([k, v]) => v !== '' && k !== 'country' && k !== 'method'));
      const r = await setOwnAccount(ctx, { country: values.country!, method: values.method! }, account, actorOf(c.s));
      if (r.ok) return { redirect: '/ops/connectors/own_accounts?done=saved' };
      const { byField, general } = errorsByField(r.details, OWN_FIELDS);
      return ownAccountsPage(c.f, await ownAccounts(ctx), { values: removing ? {} : values, errors: removing ? {} : byField, error: fillText(c.f.t.connInvalid, { details: (removing ? r.details : general).join('; ') || '—' }) }, 400);
    }));
  }

  app.get('/ops/connectors/:name', opsRoute('connectors', async (c) => {
    const conn = configurableConnector(c.params.name ?? '');
    if (!conn) return notFound(c.f);
    const stored = await connectorSettings(ctx, conn.name);
    return connectorPage(c.f, conn, stored, { values: stored?.settings ?? {}, errors: {}, notice: c.query.done === 'saved' ? c.f.t.connSaved : undefined });
  }));

  app.post('/ops/connectors/:name', opsRoute('connectors', async (c) => {
    const conn = configurableConnector(c.params.name ?? '');
    if (!conn) return notFound(c.f);
    const names = conn.settings.fields.map((x) => x.name);
    const values = given(c.body, names);
    const r = await configureConnector(ctx, conn, values, actorOf(c.s), c.request.log);
    if (r.ok) return { redirect: `/ops/connectors/${conn.name}?done=saved` };
    const { byField, general } = errorsByField(r.details, names);
    return connectorPage(c.f, conn, await connectorSettings(ctx, conn.name), { values, errors: byField, error: fillText(c.f.t.connInvalid, { details: general.join('; ') || fillText(c.f.t.feeInvalid, { count: r.details.length }) }) }, 400);
  }));
}

