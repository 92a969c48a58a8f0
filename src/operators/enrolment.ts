// An operator's enrolment through the one-time link an admin (or the CLI) received when making or
// resetting them (src/operators/accounts.ts issueEnrolment): whoever opens the link is shown a new
// authenticator secret (each opening makes another; only the last one shown is accepted), chooses
// a password, and confirms the secret with a code of it. Then, in one transaction, the password and
// the secret take effect, the link is spent (its hash cleared: it works once), the operator's
// sessions end and the enrolment is audited as the operator's own act. A link past its expiry is
// refused; so is one used or replaced by a later reset. Nothing here is shown to the one who made
// the link: they only ever held the link itself.
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { clearFailures } from '../auth/login-lockout.ts';
import { hashPassword } from '../domain/secrets.ts';
import { newTotpSecret, otpauthUri, totpMatchStep } from '../backoffice/totp.ts';
import { enrolmentHash, passwordProblem, type Operator } from './accounts.ts';
import { recordOpsAudit } from './audit.ts';

export type EnrolmentProblem = 'unknown' | 'expired';

export type OpenedEnrolment =
  | { ok: true; operator: Pick<Operator, 'id' | 'email' | 'role'>; expiresAt: Date; secret: string; uri: string }
  | { ok: false; reason: EnrolmentProblem };

export type EnrolmentResult =
  | { ok: true; operator: Pick<Operator, 'id' | 'email' | 'role'> }
  | { ok: false; reason: EnrolmentProblem | 'mismatch' | 'short' | 'long' | 'code' };

/** The link's token is 32 random bytes, base64url: anything else is no link. */
const TOKEN = /^[\w-]{43}$/;

interface Row { id: number; email: string; role: Operator['role']; enrolment_expires_at: Date; totp_pending_enc: string | null }

async function linkRow(ctx: AppContext, token: string, lock: boolean, q: Queryable = ctx.db): Promise<Row | EnrolmentProblem> {
  if (!TOKEN.test(token)) return 'unknown';
  const { rows } = await q.query<Row>(
    `SELECT id, email, role, enrolment_expires_at, totp_pending_enc FROM operators WHERE enrolment_hash = $1${lock ? ' FOR UPDATE' : ''}`,
    [enrolmentHash(ctx.box, token)],
  );
  const r = rows[0];
  if (!r) return 'unknown';
  if (r.enrolment_expires_at.getTime() <= ctx.now().getTime()) return 'expired';
  return r;
}

const context = (email: string) => `operator:${email}`;

/** Opening the link: a new authenticator secret, kept waiting for its code, shown this once. */
export async function openEnrolment(ctx: AppContext, token: string): Promise<OpenedEnrolment> {
  const r = await linkRow(ctx, token, false);
  if (typeof r === 'string') return { ok: false, reason: r };
  const secret = newTotpSecret();
  const { rowCount } = await ctx.db.query('UPDATE operators SET totp_pending_enc = $3 WHERE id = $1 AND enrolment_hash = $2', [
    r.id, enrolmentHash(ctx.box, token), ctx.box.encrypt(secret, context(r.email)),
  ]);
  if (rowCount !== 1) return { ok: false, reason: 'unknown' };
  return { ok: true, operator: { id: r.id, email: r.email, role: r.role }, expiresAt: r.enrolment_expires_at, secret, uri: otpauthUri(secret, r.email) };
}

/**
 * Completing it: the password (twice) and a code of the secret last shown. Right, the operator's
 * password and authenticator are theirs and the link is spent; wrong, nothing changes.
 */
export async function completeEnrolment(ctx: AppContext, token: string, password: string, again: string, code: string): Promise<EnrolmentResult> {
  if (password !== again) return { ok: false, reason: 'mismatch' };
  const problem = passwordProblem(password, '');
  if (problem === 'short' || problem === 'long') return { ok: false, reason: problem };
  // Checked before the transaction (scrypt is slow), and again under the row's lock.
  const first = await linkRow(ctx, token, false);
  if (typeof first === 'string') return { ok: false, reason: first };
  const hash = hashPassword(password);
  const now = ctx.now();
  return ctx.db.tx(async (q): Promise<EnrolmentResult> => {
    const r = await linkRow(ctx, token, true, q);
    if (typeof r === 'string') return { ok: false, reason: r };
    const step = r.totp_pending_enc ? totpMatchStep(ctx.box.decrypt(r.totp_pending_enc, context(r.email)), code, now) : null;
    if (step === null) return { ok: false, reason: 'code' };
    await q.query(
      `UPDATE operators SET password_hash = $2, password_changed_at = $3, totp_secret_enc = totp_pending_enc, totp_pending_enc = NULL,
         totp_reset_at = NULL, totp_last_step = $4, enrolment_hash = NULL, enrolment_expires_at = NULL WHERE id = $1`,
      [r.id, hash, now, step],
    );
    await q.query('DELETE FROM operator_sessions WHERE operator_id = $1', [r.id]);
    await clearFailures(q, 'operator_login_failures', r.email);
    await recordOpsAudit(q, { actor: { kind: 'operator', id: r.id, email: r.email, ip: null }, action: 'operator.enrolled', subject: `operator:${r.id}`, at: now });
    return { ok: true, operator: { id: r.id, email: r.email, role: r.role } };
  });
}
