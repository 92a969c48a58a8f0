// The panel's audit log: every change made in the panel, who made it, from where and when,
// written in the same transaction as the change (src/audit/audit.ts recordAudit: the services
// take the entry and write it inside the action's transaction).
import { type AuditActor, type AuditEntry, recordAudit } from '../../audit/audit.ts';
import type { Queryable } from '../../db/db.ts';
import type { Role } from './roles.ts';

/** The signed-in person acting, as every panel service receives it. */
export interface Actor extends AuditActor {
  role: Role;
}

/** An audit entry of the actor (the time is the context's clock, as for every panel row). */
export function entry(a: Actor, action: string, subject: string | null, detail: Record<string, unknown> = {}, at = new Date()): AuditEntry {
  return { actor: a, action, subject, detail, at };
}

/** Writes one entry on q: the caller's transaction when the entry records a change. */
export async function audit(q: Queryable, a: Actor, action: string, subject: string | null, detail: Record<string, unknown> = {}, at = new Date()): Promise<void> {
  await recordAudit(q, entry(a, action, subject, detail, at));
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
