// The one writer of audit rows: panel_audit for a merchant's panel users, operator_audit for the
// operators' side (the console's operators and the admin API's tokens, reconciliation's imports
// and resolutions among their actions). A service that performs an audited action takes an optional `audit` and writes it with
// recordAudit on the action's own transaction: the action and the record of who did it commit
// together or not at all.
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

/** Who acted on the operators' side: an operator of the console, or an admin API token (0: the bootstrap token). */
export type OpsActor =
  | { kind: 'operator'; id: number; email: string; ip: string | null }
  | { kind: 'token'; id: number; name: string; ip: string | null; requestId?: string };

export interface OpsAuditEntry {
  ops: OpsActor;
  action: string;
  merchantId?: number | null;
  subject?: string | null;
  detail?: Record<string, unknown>;
  at?: Date;
}

export const opsActorName = (a: OpsActor): string => (a.kind === 'operator' ? a.email : `token:${a.name}`);

/** An entry, or one made from what the action produced (the new refund, the cashout after the change). */
export type Audit<R = never> = AuditEntry | OpsAuditEntry | ((result: R) => AuditEntry | OpsAuditEntry);

export async function recordAudit<R>(q: Queryable, audit: Audit<R>, result?: R): Promise<void> {
  const e = typeof audit === 'function' ? audit(result as R) : audit;
  if ('ops' in e) {
    const a = e.ops;
    await q.query(
      `INSERT INTO operator_audit (operator_id, token_id, actor, action, merchant_id, subject, detail, ip, request_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        a.kind === 'operator' ? a.id : null, a.kind === 'token' ? a.id : null, opsActorName(a), e.action, e.merchantId ?? null, e.subject ?? null,
        JSON.stringify(e.detail ?? {}), a.ip, a.kind === 'token' ? (a.requestId ?? null) : null, e.at ?? new Date(),
      ],
    );
    return;
  }
  await q.query(
    'INSERT INTO panel_audit (merchant_id, user_id, email, action, subject, detail, ip, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [e.actor.merchantId, e.actor.userId, e.actor.email, e.action, e.subject ?? null, JSON.stringify(e.detail ?? {}), e.actor.ip, e.at ?? new Date()],
  );
}
