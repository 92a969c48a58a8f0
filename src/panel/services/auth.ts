// Panel sign-in and sessions.
//
// - The owner signs in with the merchant's `panel` credentials (e-mail and scrypt hash in
//   `credentials`); an operator's rotation of that set is the password reset, and it ends the
//   owner's sessions (a session older than the credentials is refused). Invited users have their
//   own scrypt hash in panel_users.
// - An e-mail is unique within a merchant, not across merchants: the password says which account
//   is meant (checked against every account of the e-mail, at least SIGN_IN_CHECKS times), and
//   when it fits several, the person picks the merchant (a signed ticket, chooseAccount).
// - Sessions live in the database, keyed by a keyed hash of a random cookie value; a new value is
//   issued at every sign-in and after the second factor (no fixation). They end after
//   IDLE_MINUTES without use or ABSOLUTE_HOURS after sign-in, at sign-out, and everywhere at once
//   on "sign out everywhere" or a password change.
// - MAX_FAILURES wrong passwords or codes for one e-mail within LOCK_MINUTES lock it for
//   LOCK_MINUTES, known e-mail or not (so the answer does not tell which exist). Each attempt is
//   counted before it is checked (src/auth/login-lockout.ts): a burst at once gets no more checks
//   than the cap. A right password clears the count when no code is owed, else takes back only
//   its own attempt; a pending sign-in allows MFA_ATTEMPTS codes, then it is void.
// - Optional TOTP: a session whose password was right but whose code is still owed can do
//   nothing but send the code. A code is accepted once (claimTotpStep).
// The session limits, the one-use code and the CSRF token are the back-office kit's
// (src/backoffice/sessions.ts), the same for the operator console.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../config/context.ts';
import type { Queryable } from '../../db/db.ts';
import { claimAttempt as claimAttemptIn, claimCodeAttempt, failedAttempt as failedAttemptIn, LOCK_MINUTES, MAX_FAILURES, normEmail, releaseAttempt } from '../../auth/login-lockout.ts';
import { dummyPasswordHash, hashPassword, safeEqualText, verifyPassword } from '../../domain/secrets.ts';
import { type Actor, audit } from './audit.ts';
import type { Role } from './roles.ts';
import { newTotpSecret, totpMatchStep } from '../../backoffice/totp.ts';
import { ABSOLUTE_HOURS, claimTotpStep, csrfMatches, IDLE_MINUTES, sessionCutoffs, sessionLapsed } from '../../backoffice/sessions.ts';

export { ABSOLUTE_HOURS, csrfMatches, IDLE_MINUTES, LOCK_MINUTES, MAX_FAILURES };
export const MIN_PASSWORD = 12;

export interface Session {
  idHash: string;
  csrf: string;
  mfaPending: boolean;
  actor: Actor;
  totpEnabled: boolean;
  merchantName: string;
}

export type SignInResult =
  | { ok: true; token: string; mfa: boolean }
  | { ok: 'choose'; ticket: string; options: { key: string; merchant: string; role: Role }[] }
  | { ok: false; reason: 'locked'; until: Date }
  | { ok: false; reason: 'invalid' };

const T = 'panel_login_failures';
const claimAttempt = (q: Queryable, email: string, now: Date) => claimAttemptIn(q, T, email, now);
const failedAttempt = (q: Queryable, email: string, now: Date) => failedAttemptIn(q, T, email, now);

/** One panel account an e-mail may open: a merchant's owner, or a member invited by a merchant. */
interface Candidate {
  /** `o:<merchant id>` for an owner, `u:<user id>` for a member: how a choice names it. */
  key: string;
  merchantId: number;
  merchantName: string;
  role: Role;
  hash: string;
  userId: number | null;
}

/**
 * Every account of an e-mail. An e-mail is unique within a merchant's team, not across
 * merchants (one person may work for several, and no merchant can tell which addresses another
 * uses): the password says which account is meant.
 */
async function findCandidates(q: Queryable, email: string): Promise<Candidate[]> {
  const owner = await q.query<{ merchant_id: number; secret_hash: string; name: string }>(
    `SELECT c.merchant_id, c.secret_hash, m.name FROM credentials c JOIN merchants m ON m.id = c.merchant_id WHERE c.set_name = 'panel' AND c.login = $1`,
    [email],
  );
  const users = await q.query<{ id: number; merchant_id: number; role: Role; password_hash: string; name: string }>(
    `SELECT u.id, u.merchant_id, u.role, u.password_hash, m.name FROM panel_users u JOIN merchants m ON m.id = u.merchant_id
     WHERE u.email = $1 AND u.role <> 'owner' AND u.disabled_at IS NULL AND u.password_hash IS NOT NULL ORDER BY u.id`,
    [email],
  );
  return [
    ...owner.rows.map((o) => ({ key: `o:${o.merchant_id}`, merchantId: o.merchant_id, merchantName: o.name, role: 'owner' as Role, hash: o.secret_hash, userId: null })),
    ...users.rows.map((u) => ({ key: `u:${u.id}`, merchantId: u.merchant_id, merchantName: u.name, role: u.role, hash: u.password_hash, userId: u.id })),
  ];
}

/**
 * Password checks made at every sign-in, whatever the number of accounts the e-mail has (up to
 * this many): the time taken does not tell whether an address is also used at another merchant.
 */
export const SIGN_IN_CHECKS = 2;

/** The owner's panel_users row, made or re-pointed at the current panel e-mail. */
async function ownerUserId(q: Queryable, merchantId: number, email: string): Promise<number> {
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO panel_users (merchant_id, email, role) VALUES ($1, $2, 'owner')
     ON CONFLICT (merchant_id) WHERE role = 'owner' DO UPDATE SET email = EXCLUDED.email RETURNING id`,
    [merchantId, email],
  );
  return rows[0]!.id;
}

async function newSession(q: Queryable, ctx: AppContext, userId: number, merchantId: number, mfaPending: boolean, ip: string | null, ua: string | null) {
  const token = randomBytes(32).toString('base64url');
  const now = ctx.now();
  await q.query(
    `INSERT INTO panel_sessions (id_hash, user_id, merchant_id, csrf, mfa_pending, ip, user_agent, created_at, last_seen_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
    [ctx.box.hash(`panel-session|${token}`), userId, merchantId, randomBytes(24).toString('base64url'), mfaPending, ip, ua?.slice(0, 300) ?? null, now],
  );
  return token;
}

/**
 * The password was right for this account: its session (pending the second factor when it has
 * one). `claimed`: this sign-in counted an attempt (claimAttempt) that a right password takes back.
 */
async function openSession(ctx: AppContext, c: Candidate, email: string, ip: string | null, ua: string | null, claimed: boolean): Promise<{ ok: true; token: string; mfa: boolean }> {
  const now = ctx.now();
  return ctx.db.tx(async (q) => {
    const userId = c.userId ?? (await ownerUserId(q, c.merchantId, email));
    const { rows } = await q.query<{ totp_enabled: boolean }>('SELECT totp_enabled FROM panel_users WHERE id = $1', [userId]);
    const mfa = rows[0]!.totp_enabled;
    // While a code is owed the wrong attempts stay counted: a known password must not buy fresh code guesses.
    if (!mfa) await q.query('DELETE FROM panel_login_failures WHERE email = $1', [email]);
    else if (claimed) await releaseAttempt(q, T, email, now);
    const token = await newSession(q, ctx, userId, c.merchantId, mfa, ip, ua);
    await audit(q, { userId, merchantId: c.merchantId, email, role: c.role, ip }, mfa ? 'sign_in.password' : 'sign_in', null, {}, now);
    return { ok: true as const, token, mfa };
  });
}

export const CHOICE_MINUTES = 5;

/** A signed, short-lived note of the accounts one password opened, kept in a cookie until the person picks one. */
function choiceTicket(ctx: AppContext, email: string, keys: string[]): string {
  const payload = Buffer.from(JSON.stringify({ e: email, k: keys, x: ctx.now().getTime() + CHOICE_MINUTES * 60_000 })).toString('base64url');
  return `${payload}.${ctx.box.hash(`panel-choice|${payload}`)}`;
}

function readChoiceTicket(ctx: AppContext, ticket: string | undefined): { email: string; keys: string[] } | null {
  const [payload, mac, extra] = (ticket ?? '').split('.');
  if (!payload || !mac || extra !== undefined || !safeEqualText(ctx.box.hash(`panel-choice|${payload}`), mac)) return null;
  try {
    const v = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { e: string; k: string[]; x: number };
    return v.x > ctx.now().getTime() ? { email: v.e, keys: v.k } : null;
  } catch {
    return null;
  }
}

export async function signIn(ctx: AppContext, emailIn: string, password: string, ip: string | null, ua: string | null): Promise<SignInResult> {
  const email = normEmail(emailIn);
  const now = ctx.now();
  // Counted before it is checked: a burst of guesses at once gets no more checks than the cap.
  const claim = await claimAttempt(ctx.db, email, now);
  if (!claim.ok) return { ok: false, reason: 'locked', until: claim.until };
  const candidates = email ? await findCandidates(ctx.db, email) : [];
  const pw = password.slice(0, 200);
  const matched: Candidate[] = [];
  for (let i = 0; i < Math.max(SIGN_IN_CHECKS, candidates.length); i++) {
    const c = candidates[i];
    if (verifyPassword(pw, c?.hash ?? dummyPasswordHash()) && c) matched.push(c);
  }
  if (matched.length === 0) {
    const lockedNow = await failedAttempt(ctx.db, email, now);
    return lockedNow ? { ok: false, reason: 'locked', until: lockedNow } : { ok: false, reason: 'invalid' };
  }
  if (matched.length === 1) return openSession(ctx, matched[0]!, email, ip, ua, true);
  // The same person with the same password at several merchants: they say which one (the
  // account chosen clears the count when no code is owed: openSession).
  await releaseAttempt(ctx.db, T, email, now);
  return {
    ok: 'choose',
    ticket: choiceTicket(ctx, email, matched.map((c) => c.key)),
    options: matched.map((c) => ({ key: c.key, merchant: c.merchantName, role: c.role })),
  };
}

/** The account picked after a password that opened several: must be one the ticket names, still active. */
export async function chooseAccount(ctx: AppContext, ticket: string | undefined, key: string, ip: string | null, ua: string | null): Promise<{ ok: true; token: string; mfa: boolean } | null> {
  const t = readChoiceTicket(ctx, ticket);
  if (!t || !t.keys.includes(key)) return null;
  const c = (await findCandidates(ctx.db, t.email)).find((x) => x.key === key);
  return c ? openSession(ctx, c, t.email, ip, ua, false) : null;
}

/**
 * Deletes sessions past their idle or absolute limit (loadSession refuses them anyway; without
 * this, a session nobody comes back to stays forever). Run by the session sweep worker.
 */
export async function sweepSessions(q: Queryable, now: Date): Promise<number> {
  const { idleBefore, createdBefore } = sessionCutoffs(now);
  const r = await q.query('DELETE FROM panel_sessions WHERE last_seen_at < $1 OR created_at < $2', [idleBefore, createdBefore]);
  return r.rowCount;
}

/** The live session of a cookie value, touched; null when unknown, expired or revoked. */
export async function loadSession(ctx: AppContext, token: string | undefined, ip: string | null): Promise<Session | null> {
  if (!token || !/^[\w-]{43}$/.test(token)) return null;
  const idHash = ctx.box.hash(`panel-session|${token}`);
  const now = ctx.now();
  const { rows } = await ctx.db.query<{
    csrf: string; mfa_pending: boolean; created_at: Date; last_seen_at: Date; user_id: number; merchant_id: number; email: string; role: Role;
    totp_enabled: boolean; disabled_at: Date | null; cred_login: string | null; cred_at: Date | null; merchant_name: string;
  }>(
    `SELECT s.csrf, s.mfa_pending, s.created_at, s.last_seen_at, u.id AS user_id, u.merchant_id, u.email, u.role, u.totp_enabled, u.disabled_at,
            c.login AS cred_login, c.created_at AS cred_at, m.name AS merchant_name
     FROM panel_sessions s JOIN panel_users u ON u.id = s.user_id JOIN merchants m ON m.id = u.merchant_id
     LEFT JOIN credentials c ON c.merchant_id = u.merchant_id AND c.set_name = 'panel'
     WHERE s.id_hash = $1`,
    [idHash],
  );
  const r = rows[0];
  if (!r) return null;
  const expired =
    sessionLapsed({ createdAt: r.created_at, lastSeenAt: r.last_seen_at }, now) ||
    r.disabled_at !== null ||
    // The owner's password was reset (rotated) or changed after this session began.
    (r.role === 'owner' && (r.cred_login !== r.email || (r.cred_at !== null && r.cred_at > r.created_at)));
  if (expired) {
    await ctx.db.query('DELETE FROM panel_sessions WHERE id_hash = $1', [idHash]);
    return null;
  }
  await ctx.db.query('UPDATE panel_sessions SET last_seen_at = $2 WHERE id_hash = $1', [idHash, now]);
  return {
    idHash,
    csrf: r.csrf,
    mfaPending: r.mfa_pending,
    totpEnabled: r.totp_enabled,
    merchantName: r.merchant_name,
    actor: { userId: r.user_id, merchantId: r.merchant_id, email: r.email, role: r.role, ip },
  };
}

/** The second factor: a right code turns the pending session into a new, full one. */
export async function completeMfa(ctx: AppContext, s: Session, code: string, ua: string | null): Promise<string | null> {
  const now = ctx.now();
  // Counted before it is checked, on the pending sign-in (void after MFA_ATTEMPTS) and on the e-mail's lock-out.
  if (!(await claimCodeAttempt(ctx.db, 'panel_sessions', s.idHash))) return null;
  const claim = await claimAttempt(ctx.db, s.actor.email, now);
  if (!claim.ok) {
    await ctx.db.query('DELETE FROM panel_sessions WHERE id_hash = $1', [s.idHash]);
    return null;
  }
  const { rows } = await ctx.db.query<{ totp_secret_enc: string | null }>('SELECT totp_secret_enc FROM panel_users WHERE id = $1', [s.actor.userId]);
  const enc = rows[0]?.totp_secret_enc;
  const step = enc ? totpMatchStep(ctx.box.decrypt(enc), code, now) : null;
  if (step === null || !(await claimTotpStep(ctx.db, 'panel_users', s.actor.userId, step))) {
    const lockedNow = await ctx.db.tx(async (q) => {
      await audit(q, s.actor, 'sign_in.totp_failed', null, {}, now);
      return failedAttempt(q, s.actor.email, now);
    });
    // Wrong codes count towards the same lock-out as wrong passwords; a locked e-mail loses its pending session.
    if (lockedNow) await ctx.db.query('DELETE FROM panel_sessions WHERE id_hash = $1', [s.idHash]);
    return null;
  }
  return ctx.db.tx(async (q) => {
    await q.query('DELETE FROM panel_sessions WHERE id_hash = $1', [s.idHash]);
    await q.query('DELETE FROM panel_login_failures WHERE email = $1', [s.actor.email]);
    await audit(q, s.actor, 'sign_in', null, { totp: true }, now);
    return newSession(q, ctx, s.actor.userId, s.actor.merchantId, false, s.actor.ip, ua);
  });
}

export async function signOut(ctx: AppContext, s: Session): Promise<void> {
  await ctx.db.query('DELETE FROM panel_sessions WHERE id_hash = $1', [s.idHash]);
}

export async function signOutEverywhere(ctx: AppContext, s: Session): Promise<void> {
  await ctx.db.tx(async (q) => {
    await q.query('DELETE FROM panel_sessions WHERE user_id = $1', [s.actor.userId]);
    await audit(q, s.actor, 'sign_out_everywhere', null, {}, ctx.now());
  });
}

export type PasswordChange = { ok: true; token: string } | { ok: false; error: 'current' | 'short' | 'mismatch' };

/**
 * The signed-in person's own password, typed again (to change it, to turn two-factor off):
 * counted towards the sign-in lock-out before it is checked, like a sign-in's. Once the e-mail is
 * locked, this session ends too, as a pending sign-in's would.
 */
async function ownPasswordRight(ctx: AppContext, s: Session, password: string): Promise<boolean> {
  const now = ctx.now();
  const claim = await claimAttempt(ctx.db, s.actor.email, now);
  let right = false;
  if (claim.ok) {
    const { rows } = s.actor.role === 'owner'
      ? await ctx.db.query<{ hash: string }>(`SELECT secret_hash AS hash FROM credentials WHERE merchant_id = $1 AND set_name = 'panel'`, [s.actor.merchantId])
      : await ctx.db.query<{ hash: string }>('SELECT password_hash AS hash FROM panel_users WHERE id = $1', [s.actor.userId]);
    right = rows[0] !== undefined && verifyPassword(password.slice(0, 200), rows[0].hash);
    if (right) await ctx.db.query('DELETE FROM panel_login_failures WHERE email = $1', [s.actor.email]);
  }
  if (!right && (!claim.ok || (await failedAttempt(ctx.db, s.actor.email, now)))) await ctx.db.query('DELETE FROM panel_sessions WHERE id_hash = $1', [s.idHash]);
  return right;
}

/** Changes the signed-in person's password; every other session of theirs ends. */
export async function changePassword(ctx: AppContext, s: Session, current: string, next: string, confirm: string, ua: string | null): Promise<PasswordChange> {
  const owner = s.actor.role === 'owner';
  if (!(await ownPasswordRight(ctx, s, current))) return { ok: false, error: 'current' };
  if (next.length < MIN_PASSWORD || next.length > 200) return { ok: false, error: 'short' };
  if (next !== confirm) return { ok: false, error: 'mismatch' };
  const now = ctx.now();
  return ctx.db.tx(async (q) => {
    if (owner) {
      // created_at moves with the password: the owner's sessions older than it stop (loadSession).
      await q.query(`UPDATE credentials SET secret_hash = $2, created_at = $3 WHERE merchant_id = $1 AND set_name = 'panel'`, [s.actor.merchantId, hashPassword(next), now]);
    } else {
      await q.query('UPDATE panel_users SET password_hash = $2 WHERE id = $1', [s.actor.userId, hashPassword(next)]);
    }
    await q.query('DELETE FROM panel_sessions WHERE user_id = $1', [s.actor.userId]);
    await audit(q, s.actor, 'password.changed', null, {}, now);
    return { ok: true as const, token: await newSession(q, ctx, s.actor.userId, s.actor.merchantId, false, s.actor.ip, ua) };
  });
}

/** Starts TOTP enrolment: a fresh secret, kept encrypted, used only once a code from it is confirmed. */
export async function startTotp(ctx: AppContext, s: Session): Promise<string> {
  const secret = newTotpSecret();
  await ctx.db.query('UPDATE panel_users SET totp_secret_enc = $2, totp_last_step = NULL WHERE id = $1 AND NOT totp_enabled', [s.actor.userId, ctx.box.encrypt(secret)]);
  return secret;
}

export async function pendingTotpSecret(ctx: AppContext, s: Session): Promise<string | null> {
  const { rows } = await ctx.db.query<{ totp_secret_enc: string | null; totp_enabled: boolean }>('SELECT totp_secret_enc, totp_enabled FROM panel_users WHERE id = $1', [s.actor.userId]);
  return rows[0] && !rows[0].totp_enabled && rows[0].totp_secret_enc ? ctx.box.decrypt(rows[0].totp_secret_enc) : null;
}

export async function confirmTotp(ctx: AppContext, s: Session, code: string): Promise<boolean> {
  const secret = await pendingTotpSecret(ctx, s);
  const step = secret ? totpMatchStep(secret, code, ctx.now()) : null;
  // The code that confirms the key is used up too: it cannot then sign in.
  if (step === null || !(await claimTotpStep(ctx.db, 'panel_users', s.actor.userId, step))) return false;
  await ctx.db.tx(async (q) => {
    await q.query('UPDATE panel_users SET totp_enabled = true WHERE id = $1', [s.actor.userId]);
    await audit(q, s.actor, 'totp.enabled', null, {}, ctx.now());
  });
  return true;
}

export async function disableTotp(ctx: AppContext, s: Session, password: string): Promise<boolean> {
  if (!(await ownPasswordRight(ctx, s, password))) return false;
  await ctx.db.tx(async (q) => {
    await q.query('UPDATE panel_users SET totp_enabled = false, totp_secret_enc = NULL WHERE id = $1', [s.actor.userId]);
    await audit(q, s.actor, 'totp.disabled', null, {}, ctx.now());
  });
  return true;
}
