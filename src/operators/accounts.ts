// Operator accounts: made by an admin in the console, or the first one by the CLI (`caja operator
// create`). The password and the TOTP secret are shown once, when made; only the scrypt hash and
// the encrypted secret are kept. TOTP is mandatory: there is no account without it.
import type { Db, Queryable } from '../db/db.ts';
import { hashPassword, randomToken, type SecretBox } from '../merchants/secrets.ts';
import { newTotpSecret, otpauthUri } from '../panel/services/totp.ts';
import { normEmail } from '../auth/login-lockout.ts';
import { type OpsActor, recordOpsAudit } from './audit.ts';
import type { OperatorRole } from './roles.ts';

export const PASSWORD_LENGTH = 20;

export interface Operator {
  id: number;
  email: string;
  role: OperatorRole;
  disabled_at: Date | null;
  created_at: Date;
  /** Set while a reset TOTP waits for its enrolment (listOperators reads it). */
  totp_reset_at?: Date | null;
}

export interface NewOperator extends Operator {
  password: string;
  totpSecret: string;
  otpauthUri: string;
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
  const password = randomToken(PASSWORD_LENGTH);
  const totpSecret = newTotpSecret();
  return db.tx(async (q) => {
    const { rows } = await q.query<Operator>(
      `INSERT INTO operators (email, role, password_hash, totp_secret_enc, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (email) DO NOTHING RETURNING id, email, role, disabled_at, created_at`,
      [email, role, hashPassword(password), box.encrypt(totpSecret, `operator:${email}`), now],
    );
    const op = rows[0];
    if (!op) throw new OperatorError('email_used', `an operator with the e-mail ${email} exists`);
    await recordOpsAudit(q, {
      actor: actor ?? { kind: 'operator', id: op.id, email: op.email, ip: null },
      action: actor ? 'operator.created' : 'operator.created_by_cli',
      subject: `operator:${op.id}`,
      detail: { email, role },
      at: now,
    });
    return { ...op, password, totpSecret, otpauthUri: otpauthUri(totpSecret, email) };
  });
}

export async function listOperators(q: Queryable): Promise<Operator[]> {
  const { rows } = await q.query<Operator>('SELECT id, email, role, disabled_at, created_at, totp_reset_at FROM operators ORDER BY id');
  return rows;
}
