// Operators' lifecycle: disable and enable, a new password by the operator (current password and
// a TOTP code), and an admin's reset (password and authenticator stop; the operator sets both
// again through a one-time enrolment link, src/operators/enrolment.ts). Who may do it is
// checked here, in the action's transaction, and each action is audited in it:
// - an operator acting must be an active admin (src/operators/roles.ts 'operators'); the CLI at
//   the machine (the bootstrap token's actor) may too;
// - nobody acts on themself through these (their own password has changeOwnPassword), and the
//   last active admin cannot be disabled;
// - disabling, and every reset, ends the operator's sessions at once.
import type { AppContext } from '../config/context.ts';
import type { Db, Queryable } from '../db/db.ts';
import { claimAttempt, clearFailures, failedAttempt, lockedUntil } from '../auth/login-lockout.ts';
import { hashPassword, type SecretBox, verifyPassword } from '../domain/secrets.ts';
import { type EnrolmentLink, issueEnrolment, MAX_PASSWORD, type Operator, OperatorError, passwordProblem } from './accounts.ts';
import { type OpsActor, recordOpsAudit } from './audit.ts';
import { acceptCode, type OpsSession } from './auth.ts';
import { canOps } from './roles.ts';
import { BOOTSTRAP_TOKEN_ID } from './tokens.ts';

export { MAX_PASSWORD, passwordProblem };

const COLUMNS = 'id, email, role, disabled_at, created_at';

/** The acting admin, checked (and its row locked) in the action's transaction. */
async function requireAdmin(q: Queryable, actor: OpsActor): Promise<void> {
  if (actor.kind === 'token') {
    if (actor.id === BOOTSTRAP_TOKEN_ID) return;
    throw new OperatorError('forbidden', 'only an admin operator, or the CLI, manages operators');
  }
  const { rows } = await q.query<{ role: Operator['role']; disabled_at: Date | null }>('SELECT role, disabled_at FROM operators WHERE id = $1 FOR UPDATE', [actor.id]);
  const me = rows[0];
  if (!me || me.disabled_at || !canOps(me.role, 'operators')) throw new OperatorError('forbidden', 'only an admin operator manages operators');
}

/** The operator acted on, locked; never the actor. */
async function target(q: Queryable, actor: OpsActor, id: number): Promise<Operator> {
  if (actor.kind === 'operator' && actor.id === id) throw new OperatorError('self', 'ask another admin: an operator does not disable or reset themself');
  const { rows } = await q.query<Operator>(`SELECT ${COLUMNS} FROM operators WHERE id = $1 FOR UPDATE`, [id]);
  if (!rows[0]) throw new OperatorError('not_found', 'Operator not found');
  return rows[0];
}

const endSessions = (q: Queryable, operatorId: number) => q.query('DELETE FROM operator_sessions WHERE operator_id = $1', [operatorId]);

/** The operator by e-mail (the CLI names operators by e-mail). */
export async function operatorByEmail(q: Queryable, email: string): Promise<Operator | null> {
  const { rows } = await q.query<Operator>(`SELECT ${COLUMNS} FROM operators WHERE email = $1`, [email.trim().toLowerCase()]);
  return rows[0] ?? null;
}

/**
 * Disables (their sessions end at once, they cannot sign in) or enables an operator. Already so:
 * nothing changes and nothing is recorded.
 */
export async function setOperatorDisabled(db: Db, id: number, disabled: boolean, actor: OpsActor, now: Date): Promise<Operator> {
  return db.tx(async (q) => {
    await requireAdmin(q, actor);
    const op = await target(q, actor, id);
    if ((op.disabled_at !== null) === disabled) return op;
    if (disabled && op.role === 'admin') {
      // Every active admin row is locked: two admins disabling each other at once are serialised,
      // and the second finds itself the last.
      const { rows } = await q.query<{ id: number }>("SELECT id FROM operators WHERE role = 'admin' AND disabled_at IS NULL ORDER BY id FOR UPDATE");
      if (rows.filter((r) => r.id !== id).length === 0) throw new OperatorError('last_admin', 'the last active admin cannot be disabled');
    }
    const { rows } = await q.query<Operator>(`UPDATE operators SET disabled_at = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, disabled ? now : null]);
    if (disabled) await endSessions(q, id);
    await recordOpsAudit(q, { actor, action: disabled ? 'operator.disabled' : 'operator.enabled', subject: `operator:${id}`, detail: { email: op.email }, at: now });
    return rows[0]!;
  });
}

/**
 * A reset: the operator's password and authenticator stop at once, their sessions end, and a new
 * one-time enrolment link (replacing any earlier one) is returned for them: they choose a new
 * password and enrol a new authenticator through it (src/operators/enrolment.ts). The resetter
 * never learns either; who reset the operator is recorded (four eyes reads it).
 */
export async function resetOperator(db: Db, box: SecretBox, id: number, actor: OpsActor, now: Date): Promise<Operator & { enrolment: EnrolmentLink }> {
  return db.tx(async (q) => {
    await requireAdmin(q, actor);
    const op = await target(q, actor, id);
    const enrolment = await issueEnrolment(q, box, op, now);
    await q.query('UPDATE operators SET last_reset_by = $2, last_reset_at = $3, password_changed_at = $3 WHERE id = $1', [id, actor.kind === 'operator' ? actor.id : null, now]);
    await endSessions(q, id);
    await recordOpsAudit(q, { actor, action: 'operator.reset', subject: `operator:${id}`, detail: { email: op.email, enrolment_expires_at: enrolment.expiresAt.toISOString() }, at: now });
    return { ...op, enrolment };
  });
}

export type PasswordChange = { ok: true } | { ok: false; reason: 'locked'; until: Date } | { ok: false; reason: 'invalid' | 'short' | 'long' | 'same' };

const LOCKOUT = 'operator_login_failures';

/**
 * A signed-in operator's own new password: their current password and a code (each code once)
 * prove it is them; a wrong one counts towards the sign-in lock-out. Their other sessions end.
 */
export async function changeOwnPassword(ctx: AppContext, s: OpsSession, current: string, code: string, next: string): Promise<PasswordChange> {
  const now = ctx.now();
  const email = s.operator.email;
  const until = await lockedUntil(ctx.db, LOCKOUT, email, now);
  if (until) return { ok: false, reason: 'locked', until };
  const problem = passwordProblem(next, current);
  if (problem) return { ok: false, reason: problem };
  // Counted before the password and code are checked (src/auth/login-lockout.ts).
  const claim = await claimAttempt(ctx.db, LOCKOUT, email, now);
  if (!claim.ok) {
    // Locked out: this session ends too, as a sign-in's would.
    await ctx.db.query('DELETE FROM operator_sessions WHERE id_hash = $1', [s.idHash]);
    return { ok: false, reason: 'locked', until: claim.until };
  }
  const result = await ctx.db.tx(async (q): Promise<PasswordChange> => {
    const { rows } = await q.query<{ password_hash: string; totp_secret_enc: string; disabled_at: Date | null }>(
      'SELECT password_hash, totp_secret_enc, disabled_at FROM operators WHERE id = $1 FOR UPDATE', [s.operator.id],
    );
    const me = rows[0];
    if (!me || me.disabled_at) return { ok: false, reason: 'invalid' };
    const right = verifyPassword(current.slice(0, MAX_PASSWORD), me.password_hash)
      && (await acceptCode(q, s.operator.id, ctx.box.decrypt(me.totp_secret_enc, `operator:${email}`), code, now)) !== null;
    if (!right) return { ok: false, reason: 'invalid' };
    await q.query('UPDATE operators SET password_hash = $2, password_changed_at = $3 WHERE id = $1', [s.operator.id, hashPassword(next), now]);
    await q.query('DELETE FROM operator_sessions WHERE operator_id = $1 AND id_hash <> $2', [s.operator.id, s.idHash]);
    await clearFailures(q, LOCKOUT, email);
    await recordOpsAudit(q, { actor: { kind: 'operator', id: s.operator.id, email, ip: s.ip }, action: 'operator.password_changed', subject: `operator:${s.operator.id}`, at: now });
    return { ok: true };
  });
  if (!result.ok && result.reason === 'invalid') {
    const lockedNow = await failedAttempt(ctx.db, LOCKOUT, email, now);
    if (lockedNow) {
      // Locked out: this session ends too, as a sign-in's would.
      await ctx.db.query('DELETE FROM operator_sessions WHERE id_hash = $1', [s.idHash]);
      return { ok: false, reason: 'locked', until: lockedNow };
    }
  }
  return result;
}
