// The operators' audit log (operator_audit): every console action and every admin API call that
// changes something, with who made it. Rows are written by src/audit/audit.ts recordAudit on the
// action's own transaction; this module names the actor and reads the log.
import { type OpsActor, opsActorName, recordAudit } from '../audit/audit.ts';
import type { Queryable } from '../db/db.ts';

export type { OpsActor };
export const actorName = opsActorName;

export interface OpsAuditEntry {
  actor: OpsActor;
  action: string;
  merchantId?: number | null;
  subject?: string | null;
  detail?: Record<string, unknown>;
  at: Date;
}

/** recordAudit of an operators' entry, inside the caller's transaction. */
export async function recordOpsAudit(q: Queryable, e: OpsAuditEntry): Promise<void> {
  const { actor, ...rest } = e;
  await recordAudit(q, { ops: actor, ...rest });
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
