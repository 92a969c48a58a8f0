// Sign-in lock-out shared by the merchant panel and the operator console: MAX_FAILURES wrong
// passwords or codes for one e-mail within LOCK_MINUTES lock it for LOCK_MINUTES, known e-mail
// or not (so the answer does not tell which exist). Each door keeps its own table.
//
// Every attempt is counted before its password or code is checked (claimAttempt: one atomic
// upsert, so truly concurrent attempts each see their own number), and only the first
// MAX_FAILURES of a window are checked at all: a burst of 150 guesses at once gets 5 checks, not
// 150. A right answer clears the count (clearFailures) — a right password whose code is still
// owed only takes its own attempt back (releaseAttempt); a wrong one locks once the count is
// spent (failedAttempt). The `failures` column is this count of attempts not yet cleared.
import type { Queryable } from '../db/db.ts';

export const MAX_FAILURES = 5;
export const LOCK_MINUTES = 15;
/** Codes one pending sign-in (password right, code owed) may try; then it is void. */
export const MFA_ATTEMPTS = 5;

export type LockoutTable = 'panel_login_failures' | 'operator_login_failures';

export const normEmail = (e: string) => e.trim().toLowerCase().slice(0, 320);

export async function lockedUntil(q: Queryable, table: LockoutTable, email: string, now: Date): Promise<Date | null> {
  const { rows } = await q.query<{ locked_until: Date | null }>(`SELECT locked_until FROM ${table} WHERE email = $1`, [email]);
  const until = rows[0]?.locked_until;
  return until && until > now ? until : null;
}

const lockUntil = (now: Date) => new Date(now.getTime() + LOCK_MINUTES * 60_000);

/** Locks the e-mail from now, unless a lock is running already; the running or new lock's end. */
async function lock(q: Queryable, table: LockoutTable, email: string, now: Date): Promise<Date | null> {
  await q.query(
    `UPDATE ${table} SET locked_until = $2, failures = 0, first_failure_at = $3 WHERE email = $1 AND (locked_until IS NULL OR locked_until <= $3)`,
    [email, lockUntil(now), now],
  );
  return lockedUntil(q, table, email, now);
}

export type Attempt = { ok: true } | { ok: false; until: Date };

/**
 * Counts one attempt for the e-mail, before its password or code is checked: refused (without a
 * check) while the e-mail is locked or once MAX_FAILURES attempts of the window are spent, which
 * also locks it. One statement, so concurrent attempts never share a number.
 */
export async function claimAttempt(q: Queryable, table: LockoutTable, email: string, now: Date): Promise<Attempt> {
  const windowStart = new Date(now.getTime() - LOCK_MINUTES * 60_000);
  // An attempt outside the window starts a new count; a running lock is left as it is.
  const { rows } = await q.query<{ failures: number; locked_until: Date | null }>(
    `INSERT INTO ${table} AS f (email, failures, first_failure_at) VALUES ($1, 1, $2)
     ON CONFLICT (email) DO UPDATE SET
       failures = CASE WHEN f.locked_until > $2 THEN f.failures WHEN f.first_failure_at < $3 THEN 1 ELSE f.failures + 1 END,
       first_failure_at = CASE WHEN f.locked_until > $2 THEN f.first_failure_at WHEN f.first_failure_at < $3 THEN $2 ELSE f.first_failure_at END
     RETURNING failures, locked_until`,
    [email, now, windowStart],
  );
  const r = rows[0]!;
  if (r.locked_until && r.locked_until > now) return { ok: false, until: r.locked_until };
  if (r.failures <= MAX_FAILURES) return { ok: true };
  const until = await lock(q, table, email, now);
  return { ok: false, until: until ?? lockUntil(now) };
}

/**
 * After a claimed attempt turned out wrong (it is already counted): locks the e-mail when its
 * attempts are spent. The lock's end, or null while attempts remain.
 */
export async function failedAttempt(q: Queryable, table: LockoutTable, email: string, now: Date): Promise<Date | null> {
  const { rows } = await q.query<{ failures: number }>(`SELECT failures FROM ${table} WHERE email = $1`, [email]);
  if (rows[0] && rows[0].failures >= MAX_FAILURES) return lock(q, table, email, now);
  return lockedUntil(q, table, email, now);
}

/**
 * A right password whose code is still owed: its attempt is no longer counted, but the count of
 * the wrong ones stays (only a right code clears it). Nothing changes while a lock runs.
 */
export async function releaseAttempt(q: Queryable, table: LockoutTable, email: string, now: Date): Promise<void> {
  await q.query(`UPDATE ${table} SET failures = failures - 1 WHERE email = $1 AND failures > 0 AND (locked_until IS NULL OR locked_until <= $2)`, [email, now]);
}

export async function clearFailures(q: Queryable, table: LockoutTable, email: string): Promise<void> {
  await q.query(`DELETE FROM ${table} WHERE email = $1`, [email]);
}

/**
 * Counts one code tried on a pending sign-in (a session whose code is owed), before it is
 * checked: false once MFA_ATTEMPTS are spent (or the session is no longer pending), and the
 * session is then void.
 */
export async function claimCodeAttempt(q: Queryable, table: 'panel_sessions' | 'operator_sessions', idHash: string): Promise<boolean> {
  const { rows } = await q.query<{ mfa_attempts: number }>(
    `UPDATE ${table} SET mfa_attempts = mfa_attempts + 1 WHERE id_hash = $1 AND mfa_pending RETURNING mfa_attempts`,
    [idHash],
  );
  if (rows[0] && rows[0].mfa_attempts <= MFA_ATTEMPTS) return true;
  await q.query(`DELETE FROM ${table} WHERE id_hash = $1`, [idHash]);
  return false;
}
