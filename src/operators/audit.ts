// The operators' audit log (operator_audit): every console action and every admin API call that
// changes something, with who made it (an operator, or an admin token by id; token 0 is the
// bootstrap CAJA_ADMIN_TOKEN). Written by recordOpsAudit on the action's own transaction.
import type { Queryable } from '../db/db.ts';

/** Who acted on the operators' side. */
export type OpsActor =
  | { kind: 'operator'; id: number; email: string; ip: string | null }
  | { kind: 'token'; id: number; name: string; ip: string | null; requestId?: string };

export interface OpsAuditEntry {
  actor: OpsActor;
  action: string;
  merchantId?: number | null;
  subject?: string | null;
  detail?: Record<string, unknown>;
  at: Date;
}

export const actorName = (a: OpsActor): string => (a.kind === 'operator' ? a.email : `token:${a.name}`);

export async function recordOpsAudit(q: Queryable, e: OpsAuditEntry): Promise<void> {
  await q.query(
    `INSERT INTO operator_audit (operator_id, token_id, actor, action, merchant_id, subject, detail, ip, request_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      e.actor.kind === 'operator' ? e.actor.id : null, e.actor.kind === 'token' ? e.actor.id : null, actorName(e.actor), e.action,
      e.merchantId ?? null, e.subject ?? null, JSON.stringify(e.detail ?? {}), e.actor.ip, e.actor.kind === 'token' ? (e.actor.requestId ?? null) : null, e.at,
    ],
  );
}

export interface OpsAuditRow {
  id: number;
  operator_id: number | null;
  token_id: number | null;
  actor: string;
  action: string;
  merchant_id: number | null;
  subject: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
  request_id: string | null;
  created_at: Date;
}

/** Newest first, by cursor; optionally one merchant's or one action's. */
export async function listOpsAudit(q: Queryable, o: { before?: number; limit: number; merchantId?: number; action?: string }): Promise<OpsAuditRow[]> {
  const { rows } = await q.query<OpsAuditRow>(
    `SELECT * FROM operator_audit WHERE ($1::bigint IS NULL OR id < $1) AND ($2::integer IS NULL OR merchant_id = $2) AND ($3::text IS NULL OR action = $3)
     ORDER BY id DESC LIMIT $4`,
    [o.before ?? null, o.merchantId ?? null, o.action ?? null, o.limit],
  );
  return rows;
}
