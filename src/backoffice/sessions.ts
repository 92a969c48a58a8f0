// The back-office kit's rules for the people who sign in to the merchant panel
// (src/panel/services/auth.ts) and to the operator console (src/operators/auth.ts), stated once:
// - a session ends IDLE_MINUTES after its last use or ABSOLUTE_HOURS after sign-in, whichever
//   comes first (sessionLapsed; sessionCutoffs gives the same limits to the sweeps that delete
//   lapsed rows, and the session cookie lives as long as the absolute limit);
// - a TOTP code is accepted once (claimTotpStep): the account's last accepted time step moves
//   forward atomically, so the same code (seen over a shoulder, or replayed) is refused after;
// - every form post carries the session's CSRF token (csrfMatches).
// The lock-out of wrong passwords and codes is src/auth/login-lockout.ts, shared by both; the
// faces' part (cookies, origin check, the error page) is src/web/session-cookies.ts and
// src/web/backoffice-errors.ts.
import type { Queryable } from '../db/db.ts';
import { safeEqualText } from '../domain/secrets.ts';

export const IDLE_MINUTES = 30;
export const ABSOLUTE_HOURS = 12;

/** How long a session cookie lives (the absolute limit: the server refuses it sooner when idle). */
export const SESSION_COOKIE_SECONDS = ABSOLUTE_HOURS * 3600;

/** Whether a session begun at createdAt and last used at lastSeenAt has ended by now. */
export function sessionLapsed(s: { createdAt: Date; lastSeenAt: Date }, now: Date): boolean {
  return now.getTime() - s.lastSeenAt.getTime() > IDLE_MINUTES * 60_000 || now.getTime() - s.createdAt.getTime() > ABSOLUTE_HOURS * 3_600_000;
}

/** The same limits for a sweep: a session last used before idleBefore, or begun before createdBefore, has lapsed. */
export function sessionCutoffs(now: Date): { idleBefore: Date; createdBefore: Date } {
  return { idleBefore: new Date(now.getTime() - IDLE_MINUTES * 60_000), createdBefore: new Date(now.getTime() - ABSOLUTE_HOURS * 3_600_000) };
}

/** The accounts that sign in with a TOTP code: the panel's members and the operators. */
export type TotpAccounts = 'panel_users' | 'operators';

/**
 * A code is accepted once: the account's last accepted time step moves forward to `step`,
 * atomically. False when that step (or a later one) was already used: the code is refused.
 */
export async function claimTotpStep(q: Queryable, accounts: TotpAccounts, id: number, step: number): Promise<boolean> {
  const table = accounts === 'operators' ? 'operators' : 'panel_users';
  const { rows } = await q.query<{ id: number }>(
    `UPDATE ${table} SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id`,
    [id, step],
  );
  return rows.length === 1;
}

/** The form's token is the session's (the panel's and the operator console's sessions alike). */
export function csrfMatches(s: { csrf: string }, sent: unknown): boolean {
  return typeof sent === 'string' && safeEqualText(s.csrf, sent);
}
