// The `connectors` table: each real connector's configuration (secrets sealed with the master
// key, bound to the connector's name) and the health facts it records as it works.
import { createHash } from 'node:crypto';
import { type Audit, recordAudit } from '../audit/audit.ts';
import type { AppContext } from '../config/context.ts';

/** What writing a configuration needs: the service's context, or the CLI's database and box. */
export type ConnectorStoreContext = Pick<AppContext, 'db' | 'box' | 'now'> & { cache?: AppContext['cache'] };

export interface StoredConnector {
  name: string;
  enabled: boolean;
  /** What may be shown back to the operator. */
  settings: Record<string, string>;
  /** Decrypted only here, in memory, for the connector that uses them. */
  secrets: Record<string, string>;
  updatedAt: Date;
}

export interface ConnectorHealthRow {
  token_obtained_at: Date | null;
  webhook_registered_at: Date | null;
  webhook_url: string | null;
  last_poll_at: Date | null;
  last_poll_ok: boolean | null;
  poll_until: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
}

interface Row extends ConnectorHealthRow {
  name: string;
  enabled: boolean;
  settings: Record<string, string>;
  secrets: string;
  created_at: Date;
  updated_at: Date;
}

export const secretsContext = (name: string) => `connector:${name}`;

/** One connector's secrets, decrypted (for a form whose empty secret fields keep them); {} when not configured. */
export async function storedSecrets(ctx: Pick<AppContext, 'db' | 'box'>, name: string): Promise<Record<string, string>> {
  const { rows } = await ctx.db.query<{ secrets: string }>('SELECT secrets FROM connectors WHERE name = $1', [name]);
  return rows[0] ? (JSON.parse(ctx.box.decrypt(rows[0].secrets, secretsContext(name))) as Record<string, string>) : {};
}

export async function loadConnectorRows(ctx: AppContext): Promise<StoredConnector[]> {
  const { rows } = await ctx.db.query<Row>('SELECT name, enabled, settings, secrets, updated_at FROM connectors ORDER BY name');
  return rows.map((r) => ({
    name: r.name,
    enabled: r.enabled,
    settings: r.settings,
    secrets: JSON.parse(ctx.box.decrypt(r.secrets, secretsContext(r.name))) as Record<string, string>,
    updatedAt: r.updated_at,
  }));
}

/**
 * What a configuration change records: the settings (a long value, a certificate, by its length
 * and digest) and which secrets were set, never their values.
 */
export function configAuditDetail(settings: Record<string, string>, secretsSet: string[]): Record<string, unknown> {
  const shown = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, typeof v === 'string' && v.length > 200 ? `(${v.length} characters, sha256 ${createHash('sha256').update(v).digest('hex').slice(0, 16)})` : v]));
  return { settings: shown, secrets_set: [...secretsSet].sort() };
}

/** The names of the secrets a configuration carries (set, not empty). */
export function secretNames(secrets: Record<string, string>): string[] {
  return Object.keys(secrets).filter((k) => secrets[k] !== undefined && secrets[k] !== null);
}

/** Creates or replaces a connector's configuration; its health facts start over. `audit` (who configured it) is written in the same transaction. */
export async function saveConnector(ctx: ConnectorStoreContext, name: string, settings: Record<string, string>, secrets: Record<string, string>, audit?: Audit): Promise<void> {
  const sealed = ctx.box.encrypt(JSON.stringify(secrets), secretsContext(name));
  await ctx.db.tx(async (q) => {
    await q.query(
    `INSERT INTO connectors (name, settings, secrets, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (name) DO UPDATE SET enabled = true, settings = $2, secrets = $3, updated_at = $4,
       token_obtained_at = NULL, webhook_registered_at = NULL, webhook_url = NULL, last_error = NULL, last_error_at = NULL`,
      [name, JSON.stringify(settings), sealed, ctx.now()],
    );
    if (audit) await recordAudit(q, audit);
  });
  // Deposit creation reads the connectors through the cache: the new configuration applies now
  // in this process (others, and a CLI change, within CAJA_CACHE_SECONDS).
  ctx.cache?.changed();
}

/** Settings and health of a connector, never its secrets; null when not configured. */
export async function connectorView(ctx: Pick<AppContext, 'db'>, name: string): Promise<{ settings: Record<string, string>; health: ConnectorHealthRow; updatedAt: Date } | null> {
  const { rows } = await ctx.db.query<Row>(
    `SELECT settings, updated_at, token_obtained_at, webhook_registered_at, webhook_url, last_poll_at, last_poll_ok, poll_until, last_error, last_error_at
     FROM connectors WHERE name = $1`,
    [name],
  );
  const r = rows[0];
  if (!r) return null;
  const { settings, updated_at, ...health } = r;
  return { settings, health: health as ConnectorHealthRow, updatedAt: updated_at };
}

type HealthFact =
  | { kind: 'token' }
  | { kind: 'webhook'; url: string }
  | { kind: 'poll'; ok: boolean; until?: Date }
  | { kind: 'error'; message: string };

/** Records what a connector just learnt about its provider (best effort: never fails the caller). */
export async function recordHealth(ctx: AppContext, name: string, fact: HealthFact): Promise<void> {
  const now = ctx.now();
  try {
    switch (fact.kind) {
      case 'token':
        await ctx.db.query('UPDATE connectors SET token_obtained_at = $2 WHERE name = $1', [name, now]);
        break;
      case 'webhook':
        await ctx.db.query('UPDATE connectors SET webhook_registered_at = $2, webhook_url = $3 WHERE name = $1', [name, now, fact.url]);
        break;
      case 'poll':
        await ctx.db.query(
          'UPDATE connectors SET last_poll_at = $2, last_poll_ok = $3, poll_until = COALESCE($4, poll_until) WHERE name = $1',
          [name, now, fact.ok, fact.until ?? null],
        );
        break;
      case 'error':
        await ctx.db.query('UPDATE connectors SET last_error = $2, last_error_at = $3 WHERE name = $1', [name, fact.message.slice(0, 500), now]);
        break;
    }
  } catch (err) {
    ctx.log.warn({ err, connector: name }, 'could not record connector health');
  }
}

/** Every configured connector's settings and health (the operator console's connector page), never secrets. */
export async function allConnectorViews(ctx: Pick<AppContext, 'db'>): Promise<{ name: string; settings: Record<string, string>; health: ConnectorHealthRow; updatedAt: Date }[]> {
  const { rows } = await ctx.db.query<{ name: string }>('SELECT name FROM connectors ORDER BY name');
  const out = [];
  for (const r of rows) {
    const v = await connectorView(ctx, r.name);
    if (v) out.push({ name: r.name, ...v });
  }
  return out;
}
