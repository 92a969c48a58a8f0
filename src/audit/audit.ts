// The one writer of audit rows (panel_audit, and reconciliation_audit for operators' actions). A service that performs an audited action takes an
// optional `audit` and writes it with recordAudit on the action's own transaction: the action
// and the record of who did it commit together or not at all.
import type { Queryable } from '../db/db.ts';

/** Who acted: a signed-in panel user of a merchant (src/panel's Actor is one). */
export interface AuditActor {
  userId: number;
  merchantId: number;
  email: string;
  ip: string | null;
}

export interface AuditEntry {
  actor: AuditActor;
  action: string;
  subject?: string | null;
  detail?: Record<string, unknown>;
  /** When the actor acted; now when absent. */
  at?: Date;
}

/** An entry, or one made from what the action produced (the new refund, the cashout after the change). */
export type Audit<R = never> = AuditEntry | ((result: R) => AuditEntry);

export async function recordAudit<R>(q: Queryable, audit: Audit<R>, result?: R): Promise<void> {
  const e = typeof audit === 'function' ? audit(result as R) : audit;
  await q.query(
    'INSERT INTO panel_audit (merchant_id, user_id, email, action, subject, detail, ip, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [e.actor.merchantId, e.actor.userId, e.actor.email, e.action, e.subject ?? null, JSON.stringify(e.detail ?? {}), e.actor.ip, e.at ?? new Date()],
  );
}

/**
 * An operator's action that belongs to no merchant (reconciliation imports and resolutions):
 * who (the admin token, or an operator), what, on what, in the action's transaction.
 */
export async function recordOperatorAudit(q: Queryable, e: { actor: string; action: string; subject?: string | null; detail?: Record<string, unknown> }): Promise<void> {
  await q.query('INSERT INTO reconciliation_audit (actor, action, subject, detail) VALUES ($1, $2, $3, $4)', [
    e.actor, e.action, e.subject ?? null, JSON.stringify(e.detail ?? {}),
  ]);
}
