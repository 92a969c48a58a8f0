// The panel's audit log: every change made in the panel, who made it, from where and when,
// written in the same transaction as the change where there is one.
import type { Queryable } from '../db/db.ts';
import type { Role } from './roles.ts';

/** The signed-in person acting, as every panel service receives it. */
export interface Actor {
  userId: number;
  merchantId: number;
  email: string;
  role: Role;
  ip: string | null;
}

export async function audit(q: Queryable, a: Actor, action: string, subject: string | null, detail: Record<string, unknown> = {}, at = new Date()): Promise<void> {
  await q.query(
    'INSERT INTO panel_audit (merchant_id, user_id, email, action, subject, detail, ip, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [a.merchantId, a.userId, a.email, action, subject, JSON.stringify(detail), a.ip, at],
  );
}

export interface AuditRow {
  id: number;
  email: string;
  action: string;
  subject: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
  created_at: Date;
}

export async function listAudit(q: Queryable, merchantId: number, before: number | null, limit: number): Promise<{ rows: AuditRow[]; next: number | null }> {
  const { rows } = await q.query<AuditRow>(
    `SELECT id, email, action, subject, detail, ip, created_at FROM panel_audit
     WHERE merchant_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [merchantId, before, limit + 1],
  );
  return { rows: rows.slice(0, limit), next: rows.length > limit ? Number(rows[limit - 1]!.id) : null };
}
