// Operator accounts: made by an admin in the console, or the first one by the CLI (`caja operator
// create`). Whoever makes (or resets, src/operators/lifecycle.ts) an operator receives a one-time
// enrolment link, never a password nor an authenticator secret: the operator chooses their
// password and enrols their authenticator through it (src/operators/enrolment.ts). Until then the
// account has no usable password (ENROLLING, which no hash matches) and a secret nobody was
// shown. Only a keyed hash of the link is kept; who made the operator is recorded (four eyes
// reads it, src/operators/approvals.ts). TOTP is mandatory: there is no account without it.
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/db.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { newTotpSecret } from '../backoffice/totp.ts';
import { normEmail } from '../auth/login-lockout.ts';
import { type OpsActor, recordOpsAudit } from './audit.ts';
import type { OperatorRole } from './roles.ts';

export const PASSWORD_LENGTH = 20;

/** The most a chosen password may be (scrypt reads it all). */
export const MAX_PASSWORD = 200;

/**
 * The password policy, the one of creation: at least as long as a generated password (whose 20
 * random letters and digits are its strength), at most MAX_PASSWORD, and not the current one.
 */
export function passwordProblem(next: string, current: string): 'short' | 'long' | 'same' | null {
  if ([...next].length < PASSWORD_LENGTH) return 'short';
  if (next.length > MAX_PASSWORD) return 'long';
  if (next === current) return 'same';
  return null;
}

export interface Operator {
  id: number;
  email: string;
  role: OperatorRole;
  disabled_at: Date | null;
  created_at: Date;
  /** Set while a reset TOTP waits for its enrolment (listOperators reads it). */
  totp_reset_at?: Date | null;
  /** Set while the operator has not used their enrolment link: when it stops working. */
  enrolment_expires_at?: Date | null;
  /** The operators who made and who last reset this one (null: the CLI, or before it was recorded). */
  created_by?: number | null;
  last_reset_by?: number | null;
}

/** A one-time enrolment link: the token is shown to whoever made or reset the operator, once. */
export interface EnrolmentLink {
  token: string;
  /** The path on caja's public address (PUBLIC_BASE_URL + path is the link). */
  path: string;
  expiresAt: Date;
}

export interface NewOperator extends Operator {
  enrolment: EnrolmentLink;
}

/** How long an enrolment link works. */
export const ENROLMENT_HOURS = 72;

/** The password hash of an account waiting for its enrolment: no password verifies against it. */
export const ENROLLING = 'enrolling';

export const enrolmentHash = (box: SecretBox, token: string) => box.hash(`ops-enrol|${token}`);

/**
 * A new enrolment link for an operator, in the caller's transaction: it replaces any earlier one,
 * and the operator's password and authenticator stop working at once (a secret nobody was shown
 * replaces theirs); they set both through the link.
 */
export async function issueEnrolment(q: Queryable, box: SecretBox, op: { id: number; email: string }, now: Date): Promise<EnrolmentLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + ENROLMENT_HOURS * 3_600_000);
  await q.query(
    `UPDATE operators SET enrolment_hash = $2, enrolment_expires_at = $3, password_hash = $4, totp_secret_enc = $5,
       totp_pending_enc = NULL, totp_reset_at = NULL WHERE id = $1`,
    [op.id, enrolmentHash(box, token), expiresAt, ENROLLING, box.encrypt(newTotpSecret(), `operator:${op.email}`)],
  );
  return { token, path: `/ops/enrol/${token}`, expiresAt };
}

export type OperatorFailure =
  | 'email_used'
  | 'email_invalid'
  | 'not_found'
  | 'forbidden' // the actor may not (src/operators/lifecycle.ts checks it)
  | 'self' // an admin acting on themself
  | 'last_admin'; // disabling the last active admin

export class OperatorError extends Error {
  constructor(
    readonly kind: OperatorFailure,
    message: string,
  ) {
    super(message);
  }
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;

/** `actor` is null for the CLI, which works on the database directly (the first operator). */
export async function createOperator(db: Db, box: SecretBox, emailIn: string, role: OperatorRole, actor: OpsActor | null, now: Date): Promise<NewOperator> {
  const email = normEmail(emailIn);
  if (!EMAIL.test(email)) throw new OperatorError('email_invalid', `'${emailIn}' is not an e-mail address`);
  return db.tx(async (q) => {
    const { rows } = await q.query<Operator>(
      `INSERT INTO operators (email, role, password_hash, totp_secret_enc, created_at, created_by) VALUES ($1, $2, $3, '', $4, $5)
       ON CONFLICT (email) DO NOTHING RETURNING id, email, role, disabled_at, created_at`,
      [email, role, ENROLLING, now, actor?.kind === 'operator' ? actor.id : null],
    );
    const op = rows[0];
    if (!op) throw new OperatorError('email_used', `an operator with the e-mail ${email} exists`);
    const enrolment = await issueEnrolment(q, box, op, now);
    await recordOpsAudit(q, {
      actor: actor ?? { kind: 'operator', id: op.id, email: op.email, ip: null },
      action: actor ? 'operator.created' : 'operator.created_by_cli',
      subject: `operator:${op.id}`,
      detail: { email, role, enrolment_expires_at: enrolment.expiresAt.toISOString() },
      at: now,
    });
    return { ...op, enrolment_expires_at: enrolment.expiresAt, enrolment };
  });
}

export async function listOperators(q: Queryable): Promise<Operator[]> {
  const { rows } = await q.query<Operator>('SELECT id, email, role, disabled_at, created_at, totp_reset_at, enrolment_expires_at, created_by, last_reset_by FROM operators ORDER BY id');
  return rows;
}
