// The merchant's panel team: the owner (and admins) invite people with a role; an invitation
// hands out a one-time password, shown once, for the inviter to pass on (caja sends no e-mail).
// Removing someone ends their sessions at once.
import type { AppContext } from '../../config/context.ts';
import { hashPassword, randomToken } from '../../domain/secrets.ts';
import { type Actor, audit } from './audit.ts';
import { INVITABLE_ROLES, type Role } from './roles.ts';

export interface TeamMember {
  id: number;
  email: string;
  role: Role;
  totp_enabled: boolean;
  created_at: Date;
}

const EMAIL = /^[^\s@<>"']{1,64}@[^\s@<>"']{1,255}\.[^\s@<>"']{2,}$/;

export async function listTeam(ctx: AppContext, merchantId: number): Promise<TeamMember[]> {
  const { rows } = await ctx.db.query<TeamMember>(
    `SELECT id, email, role, totp_enabled, created_at FROM panel_users WHERE merchant_id = $1 AND disabled_at IS NULL ORDER BY role = 'owner' DESC, id`,
    [merchantId],
  );
  return rows;
}

export type InviteResult = { ok: true; email: string; password: string } | { ok: false; error: 'email' | 'role' | 'taken' };

export async function inviteUser(ctx: AppContext, a: Actor, emailIn: string, role: string): Promise<InviteResult> {
  const email = emailIn.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 320) return { ok: false, error: 'email' };
  if (!(INVITABLE_ROLES as string[]).includes(role)) return { ok: false, error: 'role' };
  const password = randomToken(20);
  return ctx.db.tx(async (q) => {
    // An e-mail is unique within this merchant's team only: whether another merchant uses the
    // address is never looked at (nor told), and inviting it claims nothing there.
    const owner = await q.query(`SELECT 1 FROM credentials WHERE merchant_id = $1 AND set_name = 'panel' AND login = $2`, [a.merchantId, email]);
    if (owner.rows.length) return { ok: false as const, error: 'taken' as const };
    const { rows } = await q.query<{ id: number }>(
      `INSERT INTO panel_users (merchant_id, email, role, password_hash) VALUES ($1, $2, $3, $4) ON CONFLICT (merchant_id, email) DO NOTHING RETURNING id`,
      [a.merchantId, email, role, hashPassword(password)],
    );
    if (!rows[0]) return { ok: false as const, error: 'taken' as const };
    await audit(q, a, 'team.invited', `user:${rows[0].id}`, { email, role }, ctx.now());
    return { ok: true as const, email, password };
  });
}

/** Removes a member of the actor's own team (never the owner); false when there is no such member. */
export async function removeUser(ctx: AppContext, a: Actor, userId: number): Promise<boolean> {
  return ctx.db.tx(async (q) => {
    const { rows } = await q.query<{ email: string }>(
      `UPDATE panel_users SET disabled_at = $3, email = email || '#removed-' || id WHERE id = $1 AND merchant_id = $2 AND role <> 'owner' AND disabled_at IS NULL RETURNING email`,
      [userId, a.merchantId, ctx.now()],
    );
    if (!rows[0]) return false;
    await q.query('DELETE FROM panel_sessions WHERE user_id = $1', [userId]);
    await audit(q, a, 'team.removed', `user:${userId}`, { email: rows[0].email.replace(/#removed-\d+$/, '') }, ctx.now());
    return true;
  });
}

/**
 * A member who forgot their password or lost their authenticator: a new one-time password
 * (shown once to the owner or admin), two-factor turned off, every session of theirs ended.
 */
export async function resetUser(ctx: AppContext, a: Actor, userId: number): Promise<{ email: string; password: string } | null> {
  const password = randomToken(20);
  return ctx.db.tx(async (q) => {
    const { rows } = await q.query<{ email: string }>(
      `UPDATE panel_users SET password_hash = $3, totp_enabled = false, totp_secret_enc = NULL
       WHERE id = $1 AND merchant_id = $2 AND role <> 'owner' AND disabled_at IS NULL RETURNING email`,
      [userId, a.merchantId, hashPassword(password)],
    );
    if (!rows[0]) return null;
    await q.query('DELETE FROM panel_sessions WHERE user_id = $1', [userId]);
    await audit(q, a, 'team.reset', `user:${userId}`, { email: rows[0].email }, ctx.now());
    return { email: rows[0].email, password };
  });
}
