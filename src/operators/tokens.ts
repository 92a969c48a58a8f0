// Admin API tokens: automation's access, named, scoped and rotatable. A token is shown once, when
// made or rotated; only its keyed hash is kept. CAJA_ADMIN_TOKEN stays the bootstrap token (id 0,
// every scope): it makes the first named tokens, and automation moves to those.
//
// Scopes: 'read' (every GET except tokens), and one scope per area that changes something.
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/db.ts';
import { type SecretBox, safeEqualText } from '../domain/secrets.ts';
import { type OpsActor, recordOpsAudit } from './audit.ts';

import { adminScopeFor, TOKEN_SCOPES, type TokenScope } from '../backoffice/actions.ts';

export { TOKEN_SCOPES, type TokenScope } from '../backoffice/actions.ts';

export const BOOTSTRAP_TOKEN_ID = 0;

export interface AdminToken {
  id: number;
  name: string;
  scopes: readonly TokenScope[];
}

export const isTokenScope = (v: unknown): v is TokenScope => typeof v === 'string' && (TOKEN_SCOPES as readonly string[]).includes(v);

/** The scope a call needs: the admin API's part of the one action table (src/backoffice/actions.ts). */
export const scopeFor = adminScopeFor;

export function allows(token: AdminToken, scope: TokenScope | null): boolean {
  if (token.id === BOOTSTRAP_TOKEN_ID) return true;
  return scope !== null && token.scopes.includes(scope);
}

const newSecret = () => `caja_at_${randomBytes(32).toString('base64url')}`;
const hashOf = (box: SecretBox, token: string) => box.hash(`admin-token|${token}`);

/** The token a bearer value is, or null. The bootstrap token is compared in constant time. */
export async function verifyAdminToken(q: Queryable, box: SecretBox, bootstrap: string, bearer: string): Promise<AdminToken | null> {
  if (safeEqualText(bearer, bootstrap)) return { id: BOOTSTRAP_TOKEN_ID, name: 'bootstrap', scopes: TOKEN_SCOPES };
  if (!/^caja_at_[\w-]{43}$/.test(bearer)) return null;
  // A keyed hash of a high-entropy value is looked up by equality: nothing about the token leaks by timing.
  const { rows } = await q.query<{ id: number; name: string; scopes: TokenScope[] }>(
    'SELECT id, name, scopes FROM admin_tokens WHERE token_hash = $1 AND revoked_at IS NULL',
    [hashOf(box, bearer)],
  );
  return rows[0] ?? null;
}

export interface TokenView {
  id: number;
  name: string;
  scopes: TokenScope[];
  created_by: string;
  created_at: Date;
  rotated_at: Date | null;
  revoked_at: Date | null;
}

export type TokenFailure = 'name_used' | 'not_found' | 'reserved_name' | 'beyond_scopes';

/** Names the audit log already gives to the bootstrap token and the CLI: no named token may take them. */
export const RESERVED_TOKEN_NAMES: readonly string[] = ['bootstrap', 'cli'];

/**
 * The scopes of whoever manages tokens: a token's own (the bootstrap token has every scope); an
 * operator of the console (whose role already allows managing tokens) holds every scope.
 */
export const scopesOf = (holder: AdminToken | null): readonly TokenScope[] => (holder === null || holder.id === BOOTSTRAP_TOKEN_ID ? TOKEN_SCOPES : holder.scopes);

/** A token may mint, rotate or revoke only tokens whose scopes are within its own. */
function checkWithin(holder: AdminToken | null, scopes: readonly string[], what: string): void {
  const own = scopesOf(holder);
  const beyond = [...new Set(scopes)].filter((x) => !(own as readonly string[]).includes(x));
  if (beyond.length) {
    throw new TokenError('beyond_scopes', `The token '${holder!.name}' cannot ${what} a token with scopes beyond its own (${beyond.join(', ')}); it holds ${own.join(', ')}`);
  }
}

export class TokenError extends Error {
  constructor(
    readonly kind: TokenFailure,
    message: string,
  ) {
    super(message);
  }
}

const by = (a: OpsActor) => (a.kind === 'operator' ? a.email : `token:${a.name}`);

/** `holder`: the token making the call (null: an operator of the console). */
export async function createAdminToken(db: Db, box: SecretBox, name: string, scopes: TokenScope[], actor: OpsActor, now: Date, holder: AdminToken | null = null): Promise<TokenView & { token: string }> {
  if (RESERVED_TOKEN_NAMES.includes(name)) throw new TokenError('reserved_name', `'${name}' is reserved (the audit log names the ${name} token so); choose another name`);
  checkWithin(holder, scopes, 'mint');
  const token = newSecret();
  return db.tx(async (q) => {
    const { rows } = await q.query<TokenView>(
      `INSERT INTO admin_tokens (name, scopes, token_hash, created_by, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (name) DO NOTHING RETURNING id, name, scopes, created_by, created_at, rotated_at, revoked_at`,
      [name, [...new Set(scopes)], hashOf(box, token), by(actor), now],
    );
    if (!rows[0]) throw new TokenError('name_used', `a token named ${name} exists`);
    await recordOpsAudit(q, { actor, action: 'token.created', subject: `token:${rows[0].id}`, detail: { name, scopes }, at: now });
    return { ...rows[0], token };
  });
}

/** The live token `id`, locked for the change, when its scopes are within the holder's. */
async function lockWithin(q: Queryable, id: number, holder: AdminToken | null, what: string): Promise<void> {
  const { rows } = await q.query<{ scopes: string[] }>('SELECT scopes FROM admin_tokens WHERE id = $1 AND revoked_at IS NULL FOR UPDATE', [id]);
  if (!rows[0]) throw new TokenError('not_found', 'Token not found');
  checkWithin(holder, rows[0].scopes, what);
}

/** A new secret for the token; the old one stops working at once. */
export async function rotateAdminToken(db: Db, box: SecretBox, id: number, actor: OpsActor, now: Date, holder: AdminToken | null = null): Promise<TokenView & { token: string }> {
  const token = newSecret();
  return db.tx(async (q) => {
    await lockWithin(q, id, holder, 'rotate');
    const { rows } = await q.query<TokenView>(
      `UPDATE admin_tokens SET token_hash = $2, rotated_at = $3 WHERE id = $1 AND revoked_at IS NULL
       RETURNING id, name, scopes, created_by, created_at, rotated_at, revoked_at`,
      [id, hashOf(box, token), now],
    );
    if (!rows[0]) throw new TokenError('not_found', 'Token not found');
    await recordOpsAudit(q, { actor, action: 'token.rotated', subject: `token:${id}`, at: now });
    return { ...rows[0], token };
  });
}

export async function revokeAdminToken(db: Db, id: number, actor: OpsActor, now: Date, holder: AdminToken | null = null): Promise<TokenView> {
  return db.tx(async (q) => {
    await lockWithin(q, id, holder, 'revoke');
    const { rows } = await q.query<TokenView>(
      `UPDATE admin_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id, name, scopes, created_by, created_at, rotated_at, revoked_at`,
      [id, now],
    );
    if (!rows[0]) throw new TokenError('not_found', 'Token not found');
    await recordOpsAudit(q, { actor, action: 'token.revoked', subject: `token:${id}`, at: now });
    return rows[0];
  });
}

export async function listAdminTokens(q: Queryable): Promise<TokenView[]> {
  const { rows } = await q.query<TokenView>('SELECT id, name, scopes, created_by, created_at, rotated_at, revoked_at FROM admin_tokens ORDER BY id');
  return rows;
}
