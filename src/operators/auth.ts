// Operator sign-in and sessions, as the merchant panel's (src/panel/services/auth.ts) with TOTP mandatory:
// - the password opens a session that can do nothing but send the code; the right code (each
//   accepted once) replaces it with a new, full session (no fixation);
// - sessions live in the database keyed by a keyed hash of a random cookie value; they end after
//   IDLE_MINUTES without use, ABSOLUTE_HOURS after sign-in (the back-office kit's limits,
//   src/backoffice/sessions.ts, the same as the panel's), at sign-out, when the operator is disabled;
// - after an admin reset the operator's TOTP (src/operators/lifecycle.ts), the code step is an
//   enrolment: each opening of the page makes and shows a new secret, once; the code of the last
//   one shown confirms it, and only then does it replace the old one;
// - every password and every code counts towards the shared lock-out (src/auth/login-lockout.ts)
//   before it is checked, and only the first MAX_FAILURES of a window are checked; a right password
//   takes back its own attempt but not the wrong ones (the code is still owed), a right code clears
//   the count; a pending sign-in allows MFA_ATTEMPTS codes, then it is void.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { claimAttempt, claimCodeAttempt, clearFailures, failedAttempt, normEmail, releaseAttempt } from '../auth/login-lockout.ts';
import { dummyPasswordHash, verifyPassword } from '../domain/secrets.ts';
import { newTotpSecret, otpauthUri, totpMatchStep } from '../backoffice/totp.ts';
import { ABSOLUTE_HOURS, claimTotpStep, IDLE_MINUTES, sessionLapsed } from '../backoffice/sessions.ts';
import { ENROLLING } from './accounts.ts';
import { type OpsActor, recordOpsAudit } from './audit.ts';
import type { OperatorRole } from './roles.ts';

export { ABSOLUTE_HOURS, IDLE_MINUTES };
const T = 'operator_login_failures';

export interface OpsSession {
  idHash: string;
  csrf: string;
  mfaPending: boolean;
  /** The operator's TOTP was reset: the code step enrols a new secret. */
  enrolTotp: boolean;
  operator: { id: number; email: string; role: OperatorRole };
  ip: string | null;
}

export const actorOf = (s: OpsSession): Extract<OpsActor, { kind: 'operator' }> => ({ kind: 'operator', id: s.operator.id, email: s.operator.email, ip: s.ip });

const idHashOf = (ctx: AppContext, token: string) => ctx.box.hash(`ops-session|${token}`);

async function newSession(q: Queryable, ctx: AppContext, operatorId: number, mfaPending: boolean, ip: string | null, ua: string | null): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = ctx.now();
  await q.query(
    `INSERT INTO operator_sessions (id_hash, operator_id, csrf, mfa_pending, ip, user_agent, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [idHashOf(ctx, token), operatorId, randomBytes(24).toString('base64url'), mfaPending, ip, ua?.slice(0, 300) ?? null, now],
  );
  return token;
}

export type OpsSignIn = { ok: true; token: string } | { ok: false; reason: 'locked'; until: Date } | { ok: false; reason: 'invalid' };

/** The password step: a right password opens a session that still owes its code. */
export async function signIn(ctx: AppContext, emailIn: string, password: string, ip: string | null, ua: string | null): Promise<OpsSignIn> {
  const email = normEmail(emailIn);
  const now = ctx.now();
  // Counted before it is checked: a burst of guesses at once gets no more checks than the cap.
  const claim = await claimAttempt(ctx.db, T, email, now);
  if (!claim.ok) return { ok: false, reason: 'locked', until: claim.until };
  const { rows } = await ctx.db.query<{ id: number; password_hash: string }>('SELECT id, password_hash FROM operators WHERE email = $1 AND disabled_at IS NULL AND enrolment_hash IS NULL AND password_hash <> $2', [email, ENROLLING]);
  const op = rows[0];
  // An operator who has not enrolled yet has no password: checked as an unknown e-mail is.
  // An unknown e-mail is checked against a dummy hash: it costs the same time as a wrong password.
  const right = verifyPassword(password.slice(0, 200), op?.password_hash ?? dummyPasswordHash()) && op !== undefined;
  if (!right) {
    const lockedNow = await failedAttempt(ctx.db, T, email, now);
    return lockedNow ? { ok: false, reason: 'locked', until: lockedNow } : { ok: false, reason: 'invalid' };
  }
  // The wrong ones stay counted until the code is right too.
  await releaseAttempt(ctx.db, T, email, now);
  return { ok: true, token: await ctx.db.tx((q) => newSession(q, ctx, op.id, true, ip, ua)) };
}

/** The live session of a cookie value, touched; null when unknown, expired, or its operator disabled. */
export async function loadSession(ctx: AppContext, token: string | undefined, ip: string | null): Promise<OpsSession | null> {
  if (!token || !/^[\w-]{43}$/.test(token)) return null;
  const idHash = idHashOf(ctx, token);
  const now = ctx.now();
  const { rows } = await ctx.db.query<{ csrf: string; mfa_pending: boolean; created_at: Date; last_seen_at: Date; id: number; email: string; role: OperatorRole; disabled_at: Date | null; totp_reset_at: Date | null }>(
    `SELECT s.csrf, s.mfa_pending, s.created_at, s.last_seen_at, o.id, o.email, o.role, o.disabled_at, o.totp_reset_at
     FROM operator_sessions s JOIN operators o ON o.id = s.operator_id WHERE s.id_hash = $1`,
    [idHash],
  );
  const r = rows[0];
  if (!r) return null;
  if (sessionLapsed({ createdAt: r.created_at, lastSeenAt: r.last_seen_at }, now) || r.disabled_at) {
    await ctx.db.query('DELETE FROM operator_sessions WHERE id_hash = $1', [idHash]);
    return null;
  }
  await ctx.db.query('UPDATE operator_sessions SET last_seen_at = $2 WHERE id_hash = $1', [idHash, now]);
  return { idHash, csrf: r.csrf, mfaPending: r.mfa_pending, enrolTotp: r.totp_reset_at !== null, operator: { id: r.id, email: r.email, role: r.role }, ip };
}

/** A right code of the secret not used before: the step it was, or null. A code is accepted once: the last accepted step moves forward atomically. */
export async function acceptCode(q: Queryable, operatorId: number, secret: string, code: string, now: Date): Promise<number | null> {
  const step = totpMatchStep(secret, code, now);
  if (step === null) return null;
  return (await claimTotpStep(q, 'operators', operatorId, step)) ? step : null;
}

const secretContext = (email: string) => `operator:${email}`;

/**
 * The enrolment of a reset TOTP, on a session that owes its code: a new secret, kept waiting for
 * its first code, and shown this once (each call replaces the one before). Null when the operator
 * has nothing to enrol.
 */
export async function beginTotpEnrolment(ctx: AppContext, s: OpsSession): Promise<{ secret: string; uri: string } | null> {
  if (!s.mfaPending) return null;
  const secret = newTotpSecret();
  const { rowCount } = await ctx.db.query('UPDATE operators SET totp_pending_enc = $2 WHERE id = $1 AND totp_reset_at IS NOT NULL', [
    s.operator.id, ctx.box.encrypt(secret, secretContext(s.operator.email)),
  ]);
  return rowCount === 1 ? { secret, uri: otpauthUri(secret, s.operator.email) } : null;
}

/**
 * The code step: a right code, not used before, turns the pending session into a new, full one.
 * While enrolling, the code is of the new secret last shown, which then replaces the old one.
 */
export async function completeMfa(ctx: AppContext, s: OpsSession, code: string, ua: string | null): Promise<string | null> {
  const now = ctx.now();
  // Counted before it is checked, on the pending sign-in (void after MFA_ATTEMPTS) and on the e-mail's lock-out.
  if (!(await claimCodeAttempt(ctx.db, 'operator_sessions', s.idHash))) return null;
  const claim = await claimAttempt(ctx.db, T, s.operator.email, now);
  if (!claim.ok) {
    await ctx.db.query('DELETE FROM operator_sessions WHERE id_hash = $1', [s.idHash]);
    return null;
  }
  const { rows } = await ctx.db.query<{ totp_secret_enc: string; totp_pending_enc: string | null; totp_reset_at: Date | null }>(
    'SELECT totp_secret_enc, totp_pending_enc, totp_reset_at FROM operators WHERE id = $1', [s.operator.id],
  );
  const r = rows[0];
  const enrolling = r?.totp_reset_at != null;
  // After a reset the old secret is no longer accepted; the new one only once it was shown.
  const secretEnc = enrolling ? r.totp_pending_enc : r?.totp_secret_enc;
  const step = secretEnc ? await acceptCode(ctx.db, s.operator.id, ctx.box.decrypt(secretEnc, secretContext(s.operator.email)), code, now) : null;
  if (step === null) {
    const lockedNow = await ctx.db.tx(async (q) => {
      await recordOpsAudit(q, { actor: actorOf(s), action: 'sign_in.totp_failed', at: now });
      return failedAttempt(q, T, s.operator.email, now);
    });
    // A locked e-mail loses its pending session.
    if (lockedNow) await ctx.db.query('DELETE FROM operator_sessions WHERE id_hash = $1', [s.idHash]);
    return null;
  }
  return ctx.db.tx(async (q) => {
    if (enrolling) {
      // The secret confirmed is the one stored: a page opened meanwhile replaced it, and that one must be confirmed instead.
      const { rowCount } = await q.query(
        'UPDATE operators SET totp_secret_enc = totp_pending_enc, totp_pending_enc = NULL, totp_reset_at = NULL WHERE id = $1 AND totp_pending_enc = $2',
        [s.operator.id, secretEnc],
      );
      if (rowCount !== 1) return null;
      await recordOpsAudit(q, { actor: actorOf(s), action: 'operator.totp_enrolled', subject: `operator:${s.operator.id}`, at: now });
    }
    await q.query('DELETE FROM operator_sessions WHERE id_hash = $1', [s.idHash]);
    await clearFailures(q, T, s.operator.email);
    await recordOpsAudit(q, { actor: actorOf(s), action: 'sign_in', at: now });
    return newSession(q, ctx, s.operator.id, false, s.ip, ua);
  });
}

export async function signOut(ctx: AppContext, s: OpsSession): Promise<void> {
  await ctx.db.query('DELETE FROM operator_sessions WHERE id_hash = $1', [s.idHash]);
}

/**
 * Deletes operator sessions past their idle or absolute limit (loadSession refuses them anyway;
 * without this, a session nobody comes back to stays forever). Run by the session sweep worker.
 */
export async function sweepOperatorSessions(q: Queryable, now: Date): Promise<number> {
  const r = await q.query('DELETE FROM operator_sessions WHERE last_seen_at < $1 OR created_at < $2', [
    new Date(now.getTime() - IDLE_MINUTES * 60_000),
    new Date(now.getTime() - ABSOLUTE_HOURS * 3_600_000),
  ]);
  return r.rowCount;
}
