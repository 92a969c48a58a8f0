// Configuring the operator's connectors from the console (src/web/ops/connector-settings.ts):
// the Pix, STP and own-accounts configurations PUT /admin/connectors/… takes, checked by the
// same validators, saved by the same store with the operator's audit row in its transaction,
// then checked against the provider as the API does (afterSave). Secrets are write-only: a
// secret field left empty keeps the stored one, and none is ever read back to a page. A stored
// secret never follows a changed endpoint: when a URL or a certificate field (where caja connects,
// whom it trusts there) changes, every secret must be typed again, else nothing is saved.
import type { FastifyBaseLogger } from 'fastify';
import type { OpsActor } from '../audit/audit.ts';
import type { AppContext } from '../config/context.ts';
import { type OwnAccount, validateOwnAccounts } from '../domain/own-accounts.ts';
import { OWN_ACCOUNTS_CONNECTOR, storedAccounts } from './own-accounts.ts';
import { PIX_CONNECTOR } from './pix/connector.ts';
import { ADYEN_CONNECTOR } from './adyen/connector.ts';
import { validateAdyenConfig } from './adyen/settings.ts';
import { validatePixConfig } from './pix/settings.ts';
import { payinConnectorNamed } from './registry.ts';
import { STP_CONNECTOR } from './stp/connector.ts';
import { validateStpConfig } from './stp/settings.ts';
import { checkStp } from './stp/view.ts';
import { configAuditDetail, connectorView, saveConnector, storedSecrets } from './store.ts';
import { callbackUrl } from './worker.ts';

export interface ConnectorField {
  name: string;
  /** Sealed at rest and write-only: empty keeps what is stored. */
  secret?: boolean;
  /** A PEM block: a text area. */
  multiline?: boolean;
  /** May be left empty. */
  optional?: boolean;
  /** Where caja connects or whom it trusts there (a URL, a CA, a certificate): changing it needs every secret typed again. */
  endpoint?: boolean;
}

export interface ConfigurableConnector {
  name: string;
  label: string;
  fields: ConnectorField[];
  validate(body: unknown): { ok: true; settings: object; secrets: object } | { ok: false; details: string[] };
  /** Right after a configuration is saved: ask the provider whether it takes it (recorded in health). */
  afterSave(ctx: AppContext, log: FastifyBaseLogger): Promise<void>;
}

/** Pix: the token and the webhook at once, so health says whether the PSP takes this configuration. */
export async function registerPixWebhook(ctx: AppContext, log: FastifyBaseLogger): Promise<void> {
  const connector = await payinConnectorNamed(ctx, PIX_CONNECTOR);
  if (!connector?.registerCallback) return;
  try {
    await connector.registerCallback(callbackUrl(ctx, PIX_CONNECTOR));
  } catch (err) {
    log.warn({ err }, 'Pix webhook registration failed; the connectors worker retries');
  }
}

export const CONFIGURABLE_CONNECTORS: readonly ConfigurableConnector[] = [
  {
    name: PIX_CONNECTOR, label: 'Pix', validate: validatePixConfig, afterSave: registerPixWebhook,
    fields: [
      { name: 'api_url', endpoint: true }, { name: 'token_url', endpoint: true }, { name: 'client_id' }, { name: 'client_secret', secret: true }, { name: 'pix_key' },
      { name: 'certificate', multiline: true, endpoint: true }, { name: 'private_key', secret: true, multiline: true }, { name: 'ca', multiline: true, optional: true, endpoint: true },
      // BR cashouts as Pix sends (JSON: {"max_amount": "5000.00", "check_seconds": 60, …}; docs/connectors.md "Pix payouts").
      { name: 'payouts', multiline: true, optional: true },
    ],
  },
  {
    name: STP_CONNECTOR, label: 'STP', validate: validateStpConfig, afterSave: (ctx) => checkStp(ctx),
    fields: [
      { name: 'api_url', endpoint: true }, { name: 'empresa' }, { name: 'clabe_prefix' }, { name: 'ordering_clabe' }, { name: 'ordering_name' }, { name: 'ordering_rfc' },
      { name: 'private_key', secret: true, multiline: true }, { name: 'private_key_passphrase', secret: true },
      { name: 'webhook_secret', secret: true, optional: true }, { name: 'ca', multiline: true, optional: true, endpoint: true },
    ],
  },
  {
    name: ADYEN_CONNECTOR, label: 'Adyen', validate: validateAdyenConfig, afterSave: async () => undefined,
    fields: [
      { name: 'endpoint' }, { name: 'live_prefix', optional: true, endpoint: true }, { name: 'api_url', optional: true, endpoint: true }, { name: 'merchant_account' },
      { name: 'api_key', secret: true }, { name: 'hmac_key', secret: true }, { name: 'hmac_key_next', secret: true, optional: true },
      { name: 'methods' }, { name: 'ca', multiline: true, optional: true, endpoint: true },
    ],
  },
];

export const configurableConnector = (name: string) => CONFIGURABLE_CONNECTORS.find((c) => c.name === name);

/** The settings a form shows back (never a secret); null when not configured yet. */
export async function connectorSettings(ctx: Pick<AppContext, 'db'>, name: string): Promise<{ settings: Record<string, string>; updatedAt: Date } | null> {
  const v = await connectorView(ctx, name);
  return v ? { settings: v.settings, updatedAt: v.updatedAt } : null;
}

/**
 * The endpoint fields (ConnectorField.endpoint) whose value differs between two configurations,
 * as the validator normalized them ('' for an optional one left out).
 */
export function changedEndpoints(c: Pick<ConfigurableConnector, 'fields'>, before: Record<string, string>, after: Record<string, string>): string[] {
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
  for (const f of c.fields) {
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
  const v = c.validate(body);
  if (!v.ok) return v;
  const settings = v.settings as Record<string, string>;
  // A kept secret would be sent to (or trusted with) the new endpoint: pointing a URL or a CA at
  // one's own server must not hand over the secrets stored for the provider.
  const moved = secretsKept.length ? changedEndpoints(c, (await connectorView(ctx, c.name))?.settings ?? {}, settings) : [];
  if (moved.length) {
    return { ok: false, details: secretsKept.map((n) => `${n}: type it again: ${moved.join(' and ')} changed, and a stored secret never follows a changed endpoint`) };
  }
  await saveConnector(ctx, c.name, { ...settings }, { ...(v.secrets as Record<string, string>) }, {
    ops, action: 'connector.configured', subject: `connector:${c.name}`,
    // The secrets typed anew are the ones set by this change (an empty box kept the stored one).
    detail: configAuditDetail(settings, secretsReplaced),
    at: ctx.now(),
  });
  await c.afterSave(ctx, log);
  return { ok: true, secretsReplaced };
}

/** The own accounts configured now ([] when none). */
export async function ownAccounts(ctx: Pick<AppContext, 'db'>): Promise<OwnAccount[]> {
  const v = await connectorView(ctx, OWN_ACCOUNTS_CONNECTOR);
  return v ? storedAccounts(v) : [];
}

/**
 * Sets (adds or replaces) the account of one (country, method), or removes it (`account` null),
 * by the whole list's rule (validateOwnAccounts), audited in the save's transaction.
 */
export async function setOwnAccount(
  ctx: AppContext, pair: { country: string; method: string }, account: Record<string, string> | null, ops: OpsActor,
): Promise<{ ok: true } | { ok: false; details: string[] }> {
  const country = pair.country.trim().toUpperCase();
  const method = pair.method.trim().toUpperCase();
  const others = (await ownAccounts(ctx)).filter((a) => !(a.country === country && a.method === method));
  const list: unknown[] = account ? [...others, { ...account, country, method }] : others;
  if (list.length === 0) return { ok: false, details: ['accounts: at least one account must stay configured'] };
  const v = validateOwnAccounts({ accounts: list });
  if (!v.ok) {
    // The new account is last: its problems read as the form's fields.
    const at = `accounts[${list.length - 1}].`;
    return { ok: false, details: v.details.map((d) => (account && d.startsWith(at) ? d.slice(at.length) : d)) };
  }
  await saveConnector(ctx, OWN_ACCOUNTS_CONNECTOR, { accounts: JSON.stringify(v.accounts) }, {}, {
    ops, action: account ? 'connector.own_account_set' : 'connector.own_account_removed', subject: `connector:${OWN_ACCOUNTS_CONNECTOR}`,
    detail: account ? { account: v.accounts.find((a) => a.country === country && a.method === method) } : { country, method }, at: ctx.now(),
  });
  return { ok: true };
}
