// Configuring the operator's connectors from the console (src/web/ops/connector-settings.ts):
// the configurations PUT /admin/connectors/… takes, each kind's form built from its declared
// fields (src/connectors/kind.ts), checked by the same validators, saved by the same store with the operator's audit row in its transaction,
// then checked against the provider as the API does (afterSave). Secrets are write-only: a
// secret field left empty keeps the stored one, and none is ever read back to a page. A stored
// secret never follows a changed endpoint: when a URL or a certificate field (where caja connects,
// whom it trusts there) changes, every secret must be typed again, else nothing is saved.
// A kind whose configuration is a list (kind.ts `settings.list`: own accounts) is changed one row
// at a time (setListRow), the whole list checked by the kind's validator.
import type { FastifyBaseLogger } from 'fastify';
import type { OpsActor } from '../audit/audit.ts';
import type { AppContext } from '../config/context.ts';
import type { ConnectorKind, KindField, KindList } from './kind.ts';
import { connectorKinds } from './providers.ts';
import { payinConnectorNamed } from './registry.ts';
import { configAuditDetail, connectorView, saveConnector, storedSecrets } from './store.ts';

export type ConnectorField = KindField;

/** A kind the console configures through the generic form: one that declares its settings' fields. */
export type ConfigurableConnector = ConnectorKind & { settings: NonNullable<ConnectorKind['settings']> & { fields: readonly KindField[] } };

export const configurableConnectors = (): ConfigurableConnector[] => connectorKinds().filter((k): k is ConfigurableConnector => !!k.settings?.fields);

export const configurableConnector = (name: string) => configurableConnectors().find((c) => c.name === name);

/** A kind the console configures through the list form: one that declares its settings as a list of rows. */
export type ListConnector = ConnectorKind & { settings: NonNullable<ConnectorKind['settings']> & { list: KindList } };

export const listConnectors = (): ListConnector[] => connectorKinds().filter((k): k is ListConnector => !!k.settings?.list);

export const listConnector = (name: string) => listConnectors().find((c) => c.name === name);

/** The settings a form shows back (never a secret); null when not configured yet. */
export async function connectorSettings(ctx: Pick<AppContext, 'db'>, name: string): Promise<{ settings: Record<string, string>; updatedAt: Date } | null> {
  const v = await connectorView(ctx, name);
  return v ? { settings: v.settings, updatedAt: v.updatedAt } : null;
}

/**
 * The endpoint fields (ConnectorField.endpoint) whose value differs between two configurations,
 * as the validator normalized them ('' for an optional one left out).
 */
export function changedEndpoints(c: { fields: readonly KindField[] }, before: Record<string, string>, after: Record<string, string>): string[] {
  return c.fields.filter((f) => f.endpoint && (before[f.name] ?? '') !== (after[f.name] ?? '')).map((f) => f.name);
}

/**
 * Validates and saves a connector's configuration as an operator typed it (an empty secret keeps
 * the stored one, unless an endpoint changed: then every secret must be given again), audited in
 * the save's transaction, then checks it with the provider.
 */
export async function configureConnector(
  ctx: AppContext, c: ConfigurableConnector, given: Record<string, string>, ops: OpsActor, log: FastifyBaseLogger,
): Promise<{ ok: true; secretsReplaced: string[] } | { ok: false; details: string[] }> {
  const stored = await storedSecrets(ctx, c.name);
  const body: Record<string, string> = {};
  const secretsReplaced: string[] = [];
  const secretsKept: string[] = [];
  for (const f of c.settings.fields) {
    const v = given[f.name] ?? '';
    if (f.secret && v === '') {
      if (stored[f.name] !== undefined) {
        body[f.name] = stored[f.name]!;
        secretsKept.push(f.name);
      }
    } else if (v !== '' || !f.optional) {
      body[f.name] = v;
      if (f.secret) secretsReplaced.push(f.name);
    }
  }
  const v = c.settings.validate(body);
  if (!v.ok) return v;
  const settings = v.settings as Record<string, string>;
  // A kept secret would be sent to (or trusted with) the new endpoint: pointing a URL or a CA at
  // one's own server must not hand over the secrets stored for the provider.
  const moved = secretsKept.length ? changedEndpoints(c.settings, (await connectorView(ctx, c.name))?.settings ?? {}, settings) : [];
  if (moved.length) {
    return { ok: false, details: secretsKept.map((n) => `${n}: type it again: ${moved.join(' and ')} changed, and a stored secret never follows a changed endpoint`) };
  }
  await saveConnector(ctx, c.name, { ...settings }, { ...(v.secrets as Record<string, string>) }, {
    ops, action: 'connector.configured', subject: `connector:${c.name}`,
    // The secrets typed anew are the ones set by this change (an empty box kept the stored one).
    detail: configAuditDetail(settings, secretsReplaced),
    at: ctx.now(),
  });
  await c.settings.afterSave?.(ctx, await payinConnectorNamed(ctx, c.name), log);
  return { ok: true, secretsReplaced };
}

/** A list kind's rows configured now ([] when none). */
export async function listRows(ctx: Pick<AppContext, 'db'>, c: ListConnector): Promise<readonly Readonly<Record<string, string | undefined>>[]> {
  const v = await connectorView(ctx, c.name);
  return v ? c.settings.list.rows(v) : [];
}

/**
 * Sets (adds or replaces) the row of a list kind that `given`'s key fields name, or removes it
 * (`remove`), by the whole list's rule (the kind's validator), audited in the save's transaction.
 * Key fields are codes (trimmed, upper-cased); empty fields are left out of the row.
 */
export async function setListRow(
  ctx: AppContext, c: ListConnector, given: Record<string, string>, remove: boolean, ops: OpsActor,
): Promise<{ ok: true } | { ok: false; details: string[] }> {
  const list = c.settings.list;
  const keys = list.fields.filter((f) => f.key).map((f) => f.name);
  const code = (v: string | undefined) => (v ?? '').trim().toUpperCase();
  const keyOf = (r: Readonly<Record<string, string | undefined>>) => keys.map((k) => code(r[k])).join('|');
  const wanted = keyOf(given);
  const others = (await listRows(ctx, c)).filter((r) => keyOf(r) !== wanted);
  const row = remove ? null : {
    ...Object.fromEntries(list.fields.filter((f) => !f.key && (given[f.name] ?? '') !== '').map((f) => [f.name, given[f.name]])),
    ...Object.fromEntries(keys.map((k) => [k, code(given[k])])),
  };
  const rows: unknown[] = row ? [...others, row] : others;
  if (rows.length === 0) return { ok: false, details: [`${list.path}: at least one must stay configured`] };
  const v = c.settings.validate({ [list.path]: rows });
  if (!v.ok) {
    // The new row is last: its problems read as the form's fields.
    const at = `${list.path}[${rows.length - 1}].`;
    return { ok: false, details: v.details.map((d) => (row && d.startsWith(at) ? d.slice(at.length) : d)) };
  }
  const saved = list.rows({ settings: v.settings });
  await saveConnector(ctx, c.name, { ...v.settings }, { ...v.secrets }, {
    ops, action: `${list.audit.action}_${row ? 'set' : 'removed'}`, subject: `connector:${c.name}`,
    detail: row ? { [list.audit.row]: saved.find((r) => keyOf(r) === wanted) } : Object.fromEntries(keys.map((k) => [k, code(given[k])])),
    at: ctx.now(),
  });
  return { ok: true };
}
