// Sign-in lock-out shared by the merchant panel and the operator console: MAX_FAILURES wrong
// passwords or codes for one e-mail within LOCK_MINUTES lock it for LOCK_MINUTES, known e-mail
// or not (so the answer does not tell which exist). Each door keeps its own table.
import type { Queryable } from '../db/db.ts';

export const MAX_FAILURES = 5;
export const LOCK_MINUTES = 15;

export type LockoutTable = 'panel_login_failures' | 'operator_login_failures';

export const normEmail = (e: string) => e.trim().toLowerCase().slice(0, 320);

export async function lockedUntil(q: Queryable, table: LockoutTable, email: string, now: Date): Promise<Date | null> {
  const { rows } = await q.query<{ locked_until: Date | null }>(`SELECT locked_until FROM ${table} WHERE email = $1`, [email]);
  const until = rows[0]?.locked_until;
  return until && until > now ? until : null;
}

export async function recordFailure(q: Queryable, table: LockoutTable, email: string, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - LOCK_MINUTES * 60_000);
  // A failure outside the window starts a new count; the MAX_FAILURES-th inside it locks.
  await q.query(
    `INSERT INTO ${table} (email, failures, first_failure_at) VALUES ($1, 1, $2)
     ON CONFLICT (email) DO UPDATE SET
       failures = CASE WHEN ${table}.first_failure_at < $3 THEN 1 ELSE ${table}.failures + 1 END,
       first_failure_at = CASE WHEN ${table}.first_failure_at < $3 THEN $2 ELSE ${table}.first_failure_at END`,
    [email, now, windowStart],
  );
  await q.query(`UPDATE ${table} SET locked_until = $2, failures = 0, first_failure_at = $3 WHERE email = $1 AND failures >= $4`, [
    email, new Date(now.getTime() + LOCK_MINUTES * 60_000), now, MAX_FAILURES,
  ]);
}

export async function clearFailures(q: Queryable, table: LockoutTable, email: string): Promise<void> {
  await q.query(`DELETE FROM ${table} WHERE email = $1`, [email]);
}
