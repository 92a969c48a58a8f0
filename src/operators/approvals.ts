// Four eyes: money an operator moves by hand waits for a second operator. One operator or admin
// token asks (a balance adjustment from the console, the admin API or the CLI; the release of a
// cashout held above its merchant's threshold; a reconciliation match that credits a merchant; a
// manual exchange rate outside its band), another operator decides in the console; the decision
// and its effect (the ledger adjustment, the cashout's release or cancellation, the exception's
// resolution, the rate) and both audit rows commit in one transaction.
//
// The requester can never decide (checked here, and by a CHECK of the approvals table), nor can
// an operator the requester made or reset, nor one who made or reset the requester, directly or
// through operators made or reset in between (mayDecide): whoever makes or resets an operator
// holds its enrolment link, so could be that operator. A request an admin token made counts as
// its maker's: the operator who made the token, and every operator linked to them, cannot decide.
// A refused decision is audited. Two operators deciding at once: the request row is locked, the
// second finds it decided. Staging (test money) applies these at once (src/operators/four-eyes.ts
// says which actions ask in which environment).
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { adjustBalanceIn } from '../balances/service.ts';
import { CashoutError, transitionCashoutIn } from '../cashouts/service.ts';
import { type HeldCashout, heldCashoutsAwaitingApproval, lockCashoutHold } from '../cashouts/lookups.ts';
import { minorUnits } from '../domain/currencies.ts';
import { type Decimal, fromDb, toFixed } from '../domain/money.ts';
import { InsufficientFunds } from '../ledger/ledger.ts';
import { setManualRatesIn } from '../rates/service.ts';
import { ReconciliationError, type Resolution, resolveExceptionIn } from '../reconciliation/service.ts';
import { actorName, type OpsActor, recordOpsAudit } from './audit.ts';

export type ApprovalKind = 'cashout_release' | 'balance_adjustment' | 'reconciliation_match' | 'exchange_rate';

export type ApprovalFailure = 'not_found' | 'already_decided' | 'same_operator' | 'related_operator' | 'open_request' | 'not_held' | 'insufficient_funds' | 'no_longer_applies';

export class ApprovalError extends Error {
  constructor(
    readonly kind: ApprovalFailure,
    message: string,
  ) {
    super(message);
  }
}

type Operator = Extract<OpsActor, { kind: 'operator' }>;

export interface AdjustmentAsk {
  direction: 'credit' | 'debit';
  amount: Decimal;
  currency: string;
  reason: string;
}

export interface Approval {
  id: number;
  kind: ApprovalKind;
  merchant_id: number | null;
  merchant_name: string | null;
  cashout_id: number | null;
  payload: Record<string, string>;
  status: 'pending' | 'approved' | 'rejected';
  /** The operator who asked, or null when an admin token (or the CLI) did. */
  requested_by: number | null;
  requested_by_token: number | null;
  /** The operator's email, or token:NAME. */
  requested_by_email: string;
  requested_at: Date;
  decided_by: number | null;
  decided_by_email: string | null;
  decided_at: Date | null;
  result: Record<string, unknown> | null;
}

/** Records a request of `by` (an operator, or an admin token: the CLI is token 0 named 'cli') and its audit row. */
export async function insertRequest(q: Queryable, kind: ApprovalKind, merchantId: number | null, cashoutId: number | null, payload: Record<string, string>, by: OpsActor, now: Date): Promise<number> {
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO approvals (kind, merchant_id, cashout_id, payload, status, requested_by, requested_by_token, requested_by_name, requested_at)
     VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8) RETURNING id`,
    [kind, merchantId, cashoutId, JSON.stringify(payload), by.kind === 'operator' ? by.id : null, by.kind === 'token' ? by.id : null, actorName(by), now],
  );
  const id = rows[0]!.id;
  await recordOpsAudit(q, { actor: by, action: `approval.requested.${kind}`, merchantId, subject: `approval:${id}`, detail: payload, at: now });
  return id;
}

/** First pair of eyes: ask for a credit or debit of a merchant's balance (an operator, an admin token or the CLI). */
export async function requestAdjustment(ctx: Pick<AppContext, 'db' | 'now'>, by: OpsActor, merchantId: number, a: AdjustmentAsk): Promise<number> {
  // The amount at its currency's decimals (what the operators read and approve).
  const payload = { direction: a.direction, amount: toFixed(a.amount, minorUnits(a.currency)), currency: a.currency, reason: a.reason };
  return ctx.db.tx(async (q) => {
    const { rows } = await q.query('SELECT id FROM merchants WHERE id = $1', [merchantId]);
    if (!rows[0]) throw new ApprovalError('not_found', 'Merchant not found');
    return insertRequest(q, 'balance_adjustment', merchantId, null, payload, by, ctx.now());
  });
}

/** First pair of eyes: ask for the release of a cashout held above its merchant's threshold. */
export async function requestCashoutRelease(ctx: AppContext, by: Operator, cashoutId: number, note: string): Promise<number> {
  return ctx.db.tx(async (q) => {
    const c = await lockCashoutHold(q, cashoutId);
    if (!c) throw new ApprovalError('not_found', 'Cashout not found');
    if (!c.awaiting_approval || c.status !== 'ON_HOLD') throw new ApprovalError('not_held', `Cashout ${cashoutId} is not waiting for approval`);
    const open = await q.query('SELECT id FROM approvals WHERE cashout_id = $1 AND status = $2', [cashoutId, 'pending']);
    if (open.rows[0]) throw new ApprovalError('open_request', `Cashout ${cashoutId} already has a request waiting for a second operator`);
    return insertRequest(q, 'cashout_release', c.merchant_id, cashoutId, { note }, by, ctx.now());
  });
}

/**
 * Who may decide a request: not the operator who asked, and not an operator linked to them by
 * making or resetting, either way and through any chain (the requester made or reset an operator
 * who made or reset the approver, …). Siblings (two operators made by the same admin) may decide
 * each other's requests. Read in the decision's transaction.
 */
export async function mayDecide(q: Queryable, requestedBy: number, by: Operator): Promise<void> {
  if (requestedBy === by.id) throw new ApprovalError('same_operator', 'The operator who asked cannot decide: a second operator must');
  // Everyone above an operator: who made them and who last reset them, and so on up.
  const { rows } = await q.query<{ related: boolean }>(
    `WITH RECURSIVE above(start, id) AS (
       SELECT o.id, v.id FROM operators o, LATERAL (VALUES (o.created_by), (o.last_reset_by)) v(id) WHERE o.id = ANY($1::int[]) AND v.id IS NOT NULL
       UNION
       SELECT a.start, v.id FROM above a JOIN operators o ON o.id = a.id, LATERAL (VALUES (o.created_by), (o.last_reset_by)) v(id) WHERE v.id IS NOT NULL
     )
     SELECT EXISTS (SELECT 1 FROM above WHERE (start = $2 AND id = $3) OR (start = $3 AND id = $2)) AS related`,
    [[by.id, requestedBy], by.id, requestedBy],
  );
  if (rows[0]?.related) {
    throw new ApprovalError('related_operator', 'An operator made or reset by the one who asked (or who made or reset them) cannot decide: another operator must');
  }
}

/** A refused decision (the requester, or an operator linked to them), on its own transaction: the attempt stays in the audit log. */
async function recordRefusal(ctx: AppContext, by: Operator, approvalId: number, err: ApprovalError, now: Date): Promise<void> {
  await ctx.db.tx(async (q) => {
    const { rows } = await q.query<{ merchant_id: number | null; requested_by: number | null; requested_by_token: number | null }>('SELECT merchant_id, requested_by, requested_by_token FROM approvals WHERE id = $1', [approvalId]);
    if (!rows[0]) return;
    await recordOpsAudit(q, { actor: by, action: 'approval.refused', merchantId: rows[0].merchant_id, subject: `approval:${approvalId}`, detail: { reason: err.kind, requested_by: rows[0].requested_by, requested_by_token: rows[0].requested_by_token }, at: now });
  });
}

/**
 * Second pair of eyes: approve (the effect happens now) or reject (an adjustment is dropped; a
 * held cashout is cancelled and its funds return). Never by the operator who asked.
 */
export async function decide(ctx: AppContext, by: Operator, approvalId: number, decision: 'approve' | 'reject'): Promise<Approval> {
  const now = ctx.now();
  try {
    await ctx.db.tx(async (q) => {
      const { rows } = await q.query<{ id: number; kind: ApprovalKind; merchant_id: number; cashout_id: number | null; payload: Record<string, string>; status: string; requested_by: number | null; requested_by_token: number | null }>(
        'SELECT id, kind, merchant_id, cashout_id, payload, status, requested_by, requested_by_token FROM approvals WHERE id = $1 FOR UPDATE',
        [approvalId],
      );
      const a = rows[0];
      if (!a) throw new ApprovalError('not_found', 'Approval request not found');
      if (a.status !== 'pending') throw new ApprovalError('already_decided', `Request ${approvalId} was already ${a.status}`);
      if (a.requested_by !== null) await mayDecide(q, a.requested_by, by);
      if (a.requested_by_token !== null) {
        const maker = await tokenMaker(q, a.requested_by_token);
        if (maker.email === by.email) throw new ApprovalError('same_operator', 'The operator who made the admin token that asked cannot decide: a second operator must');
        if (maker.id !== null) await mayDecide(q, maker.id, by);
      }
      let result: Record<string, unknown>;
      if (a.kind === 'reconciliation_match' || a.kind === 'exchange_rate') {
        result = decision === 'approve' ? await applyRequest(q, ctx, a.kind, a.payload, by, approvalId) : {};
      } else if (a.kind === 'balance_adjustment') {
        if (decision === 'approve') {
          const p = a.payload;
          const row = await adjustBalanceIn(q, {
            merchantId: a.merchant_id, direction: p.direction as 'credit' | 'debit', amount: fromDb(p.amount!), currency: p.currency!, reason: p.reason!,
            actor: `four-eyes:${approvalId}`,
          });
          result = { adjustment_id: row.id, transfer_id: row.transfer_id };
        } else result = {};
      } else {
        const c = await transitionCashoutIn(q, ctx, a.cashout_id!, decision === 'approve' ? 'release' : 'cancel', {
          actor: 'operator', cause: decision === 'approve' ? 'four_eyes_approved' : 'four_eyes_rejected', approved: true,
        });
        result = { cashout_status: c.status };
      }
      await q.query(`UPDATE approvals SET status = $2, decided_by = $3, decided_at = $4, result = $5 WHERE id = $1`, [
        approvalId, decision === 'approve' ? 'approved' : 'rejected', by.id, now, JSON.stringify(result),
      ]);
      await recordOpsAudit(q, { actor: by, action: `approval.${decision === 'approve' ? 'approved' : 'rejected'}.${a.kind}`, merchantId: a.merchant_id, subject: `approval:${approvalId}`, detail: result, at: now });
    });
  } catch (err) {
    if (err instanceof ApprovalError && (err.kind === 'same_operator' || err.kind === 'related_operator')) await recordRefusal(ctx, by, approvalId, err, now);
    if (err instanceof InsufficientFunds) throw new ApprovalError('insufficient_funds', 'The debit is more than the available balance; nothing was changed');
    if (err instanceof CashoutError) throw new ApprovalError('already_decided', err.message);
    if (err instanceof ReconciliationError) throw new ApprovalError('no_longer_applies', `${err.message}; nothing was changed`);
    throw err;
  }
  // An approved exchange rate is read through the cache: it applies from now on.
  ctx.cache.changed();
  return (await listApprovals(ctx.db, { id: approvalId }))[0]!;
}

export async function listApprovals(q: Queryable, o: { status?: 'pending' | 'decided'; id?: number; limit?: number }): Promise<Approval[]> {
  const { rows } = await q.query<Approval>(
    `SELECT a.*, m.name AS merchant_name, coalesce(r.email, a.requested_by_name) AS requested_by_email, d.email AS decided_by_email
     FROM approvals a LEFT JOIN merchants m ON m.id = a.merchant_id LEFT JOIN operators r ON r.id = a.requested_by LEFT JOIN operators d ON d.id = a.decided_by
     WHERE ($1::bigint IS NULL OR a.id = $1) AND ($2::text IS NULL OR ($2 = 'pending') = (a.status = 'pending'))
     ORDER BY a.id DESC LIMIT $3`,
    [o.id ?? null, o.status ?? null, o.limit ?? 100],
  );
  return rows;
}

/** Whether the named admin token that asked was made by this operator (admin_tokens.created_by is the maker's email). */
/** Who made an admin token: the name it records (an operator's e-mail, or `cli`/`bootstrap`) and that operator's id, if one. */
async function tokenMaker(q: Queryable, tokenId: number): Promise<{ email: string | null; id: number | null }> {
  const { rows } = await q.query<{ created_by: string; operator_id: number | null }>(
    'SELECT t.created_by, o.id AS operator_id FROM admin_tokens t LEFT JOIN operators o ON o.email = t.created_by WHERE t.id = $1', [tokenId],
  );
  return { email: rows[0]?.created_by ?? null, id: rows[0]?.operator_id ?? null };
}

/** The effect of an approved reconciliation match or exchange rate, in the decision's transaction. */
async function applyRequest(q: Queryable, ctx: AppContext, kind: 'reconciliation_match' | 'exchange_rate', p: Record<string, string>, by: Operator, approvalId: number): Promise<Record<string, unknown>> {
  if (kind === 'exchange_rate') {
    await setManualRatesIn(q, ctx, { [p.currency!]: fromDb(p.rate!) }, by, `four-eyes:${approvalId}`);
    return { currency: p.currency, rate: p.rate };
  }
  const resolution = JSON.parse(p.resolution!) as Resolution;
  const x = await resolveExceptionIn(q, ctx, Number(p.exception_id), resolution, by);
  return { exception_id: x.id, status: x.status };
}

export type { HeldCashout };

/** Cashouts held above their merchant's threshold, with the open request for each if any. */
export async function heldCashouts(q: Queryable): Promise<HeldCashout[]> {
  return heldCashoutsAwaitingApproval(q);
}
