// The console's connector configuration (/ops/connectors/{name}, admin role): one form per kind,
// built from the fields it declares (src/connectors/kind.ts), for what PUT /admin/connectors/… takes, through src/connectors/configure.ts (the same
// validators and store, the operator's audit row in the save's transaction). Secret fields are
// write-only: always empty on the page, "leave empty to keep" what is stored. A kind whose
// configuration is a list of rows (`settings.list`) gets the list form: its rows as a table, each
// with its remove button (POST /ops/connectors/{name}/remove), and a form that adds or replaces
// the row its key fields name (POST /ops/connectors/{name}).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import {
  configurableConnector, configureConnector, type ConfigurableConnector, connectorSettings, listConnector, type ListConnector, listRows, setListRow,
} from '../../connectors/configure.ts';
import type { KindListWords } from '../../connectors/kind.ts';
import { connectorKinds } from '../../connectors/providers.ts';
import { actorOf } from '../../operators/auth.ts';
import { canOps } from '../../operators/roles.ts';
import { field } from '../../panel/views/pages.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, fillText } from '../view-helpers.ts';
import { area, errorsByField } from './form-bits.ts';
import type { Ctx, OpsRouteOf, Result } from './route-types.ts';
import * as V from './frame.ts';

/** A list kind's words in the page's language (English where it has none). */
const wordsOf = (f: V.Frame, c: ListConnector): KindListWords => c.settings.list.words[f.lang] ?? c.settings.list.words.en;

/** On the connectors page: where an admin configures each one (a list kind by its title). */
export function connectorLinks(f: V.Frame): SafeHtml {
  if (!canOps(f.role, 'connectors')) return html``;
  const t = f.t;
  const named = connectorKinds().flatMap((k) => {
    const list = listConnector(k.name);
    if (list) return [[k.name, wordsOf(f, list).title]];
    return configurableConnector(k.name) ? [[k.name, k.label]] : [];
  });
  const links = named.map(([name, label]) => html`<li><a href="/ops/connectors/${name}">${fillText(t.connConfigure, { name: label! })}</a></li>`);
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

function listPage(f: V.Frame, c: ListConnector, rows: readonly Readonly<Record<string, string | undefined>>[], s: FormState, status?: number): V.Page {
  const t = f.t;
  const w = wordsOf(f, c);
  const fields = c.settings.list.fields;
  const keys = fields.filter((x) => x.key);
  const label = (name: string) => w.labels?.[name] ?? name;
  const removeForm = (r: Readonly<Record<string, string | undefined>>) => html`<form method="post" action="/ops/connectors/${c.name}/remove" class="inline">${csrfField(f)}${keys.map((k) => html`<input type="hidden" name="${k.name}" value="${r[k.name] ?? ''}">`)}<button class="button danger">${fillText(t.connRemove, { pair: keys.map((k) => r[k.name] ?? '').join(' ') })}</button></form>`;
  const cells = (r: Readonly<Record<string, string | undefined>>) => fields.map((x) => (x.key ? html`<td>${r[x.name] ?? '—'}</td>` : html`<td class="wrap">${r[x.name] || '—'}</td>`));
  const head = [...fields.map((x) => label(x.name)), t.action].map((h) => html`<th scope="col">${h}</th>`);
  const table = rows.length
    ? html`<div class="scroll" role="region" aria-label="${w.title}" tabindex="0"><table><thead><tr>${head}</tr></thead><tbody>${rows.map((r) => html`<tr>${cells(r)}<td>${removeForm(r)}</td></tr>`)}</tbody></table></div>`
    : html`<p>${t.connNotConfigured}</p>`;
  const box = (x: (typeof fields)[number]) => field(x.name, label(x.name), s.values[x.name] ?? '', { error: s.errors[x.name], hint: w.hints?.[x.name], required: !x.optional });
  // The key fields side by side, then one box per field.
  const boxes = html`${keys.length ? html`<div class="row2">${keys.map(box)}</div>` : ''}${fields.filter((x) => !x.key).map(box)}`;
  return V.frame(f, '/ops/connectors', w.title, html`${s.notice ? html`<p class="ok" role="status">${s.notice}</p>` : ''}${s.error ? html`<p class="alert" role="alert">${s.error}</p>` : ''}
<p><a href="/ops/connectors">${t.navConnectors}</a></p><p class="hint">${w.hint}</p>${table}
<form method="post" action="/ops/connectors/${c.name}" class="card" novalidate><h2>${w.set}</h2>${csrfField(f)}${boxes}
<button class="button">${t.save}</button></form>`, status);
}

const given = (body: Record<string, string | undefined>, names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n, typeof body[n] === 'string' ? body[n]!.replace(/\r\n/g, '\n').trim().slice(0, 20_000) : '']));

export function registerOpsConnectorSettings(app: FastifyInstance, ctx: AppContext, opsRoute: OpsRouteOf): void {
  const notFound = (f: V.Frame) => V.messagePage(f, f.t.notFoundTitle, f.t.notFound, 404, f);

  app.post('/ops/connectors/:name/remove', opsRoute('connectors', async (c) => {
    const list = listConnector(c.params.name ?? '');
    if (!list) return notFound(c.f);
    return setRow(c, list, true);
  }));

  /** A list kind's row set or removed: back to its page, or the page again with the problems. */
  async function setRow(c: Ctx, list: ListConnector, removing: boolean): Promise<Result> {
    const names = list.settings.list.fields.map((x) => x.name);
    const values = given(c.body, names);
    const r = await setListRow(ctx, list, values, removing, actorOf(c.s));
    if (r.ok) return { redirect: `/ops/connectors/${list.name}?done=saved` };
    const { byField, general } = errorsByField(r.details, names);
    const error = fillText(c.f.t.connInvalid, { details: (removing ? r.details : general).join('; ') || '—' });
    return listPage(c.f, list, await listRows(ctx, list), { values: removing ? {} : values, errors: removing ? {} : byField, error }, 400);
  }

  app.get('/ops/connectors/:name', opsRoute('connectors', async (c) => {
    const list = listConnector(c.params.name ?? '');
    if (list) return listPage(c.f, list, await listRows(ctx, list), { values: {}, errors: {}, notice: c.query.done === 'saved' ? c.f.t.saved : undefined });
    const conn = configurableConnector(c.params.name ?? '');
    if (!conn) return notFound(c.f);
    const stored = await connectorSettings(ctx, conn.name);
    return connectorPage(c.f, conn, stored, { values: stored?.settings ?? {}, errors: {}, notice: c.query.done === 'saved' ? c.f.t.connSaved : undefined });
  }));

  app.post('/ops/connectors/:name', opsRoute('connectors', async (c) => {
    const list = listConnector(c.params.name ?? '');
    if (list) return setRow(c, list, false);
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

