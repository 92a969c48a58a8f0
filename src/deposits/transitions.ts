// Deposit status changes: the one place that checks a change against the state machine and
// writes it, with its history row, the balance credit when it completes (balances/), its audit
// row, its event and notifications, in one transaction.
//
//   transitionDepositsIn(q, ctx, requests)  many changes in the caller's transaction, set-based:
//                                           one answer each (the deposit, or its own error)
//   transitionAllIn(q, ctx, requests)       all of them or none (workers' batches)
//   transitionDepositIn(q, ctx, id, to, …)  one change in the caller's transaction (connectors,
//                                           checkout, reconciliation); throws its DepositError
//   transitionDeposit(ctx, id, to, …)       one change in its own transaction, shared with the
//                                           changes other requests ask for at the same time
//
// Completions are the hottest change (issue 30, hot accounts): each sandbox approval's own
// transaction made seven or eight round trips and a commit. Concurrent ones now share a transaction
// (src/db/batcher.ts: without load nothing waits) and its statements: one lock-and-read of
// every deposit, one UPDATE with the history rows, one ledger statement for every credit, one
// for every event and notification. Each request is checked alone against its deposit's state
// as the requests before it left it, and answered alone: one that is not found or not allowed
// fails by itself and changes no other's answer.
import type { AppContext } from '../config/context.ts';
import { type Audit, recordAudit } from '../audit/audit.ts';
import { findMethod } from '../domain/catalog.ts';
import { Batcher, batcherPerDatabase } from '../db/batcher.ts';
import type { Queryable } from '../db/db.ts';
import { checkTransition, type DepositStatus, type TransitionCause } from '../domain/deposit-states.ts';
import { isIntId } from '../domain/ids.ts';
import { creditDeposits } from '../balances/service.ts';
import { type NewEvent, recordEvents } from '../notifications/outbox.ts';
import { DepositError, depositNotFound } from './errors.ts';
import { depositNotifications } from './notifications.ts';
import type { DepositRow } from './store.ts';

export function isCrypto(d: Pick<DepositRow, 'country' | 'payment_method'>): boolean {
  return !!d.payment_method && findMethod(d.country, d.payment_method)?.kind === 'crypto';
}

export interface TransitionOptions {
  /** 'merchant', 'provider', 'sandbox', 'worker', 'operator'. */
  actor: string;
  /** When set, a deposit of another merchant is not found. */
  merchantId?: number;
  note?: string;
  /** Who made the change by hand (an admin token), recorded in the change's transaction. */
  audit?: Audit<DepositRow>;
}

/** What a change reads of its deposit, locked, before it is checked. */
export type TransitionSubject = Pick<DepositRow, 'id' | 'merchant_id' | 'status' | 'country' | 'payment_method'>;

export interface TransitionRequest {
  depositId: number;
  /**
   * The status to move to, or the rule that decides it from the deposit as locked (a sandbox
   * approval: crypto deposits stop at APPROVED), which may refuse it with its own error.
   */
  to: DepositStatus | ((d: TransitionSubject) => DepositStatus | DepositError);
  cause: TransitionCause;
  opts: TransitionOptions;
}

export type TransitionOutcome = { ok: true; deposit: DepositRow } | { ok: false; error: DepositError };

/**
 * The rounds a batch is written in: round k holds the k-th request of each deposit, in the order
 * given. One statement updates a row once, so a second change of a deposit in the same batch (a
 * duplicate approval, or APPROVED then COMPLETED) is checked and written after the first.
 * Returns the requests' positions.
 */
export function transitionRounds(depositIds: readonly number[]): number[][] {
  const seen = new Map<number, number>();
  const rounds: number[][] = [];
  depositIds.forEach((id, k) => {
    const r = seen.get(id) ?? 0;
    seen.set(id, r + 1);
    (rounds[r] ??= []).push(k);
  });
  return rounds;
}

// The stamp a change sets: completed_at, cancelled_at, or approved_at for any other target.
const UPDATE_SQL = `
WITH v AS (
  SELECT * FROM unnest($1::integer[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS v(id, to_status, from_status, cause, actor, note, n)
), u AS (
  UPDATE deposits d SET status = v.to_status, updated_at = $7::timestamptz,
         completed_at = CASE WHEN v.to_status = 'COMPLETED' THEN $7::timestamptz ELSE d.completed_at END,
         cancelled_at = CASE WHEN v.to_status = 'CANCELLED' THEN $7::timestamptz ELSE d.cancelled_at END,
         approved_at = CASE WHEN v.to_status IN ('COMPLETED', 'CANCELLED') THEN d.approved_at ELSE $7::timestamptz END
  FROM v WHERE d.id = v.id
  RETURNING d.*
), h AS (
  INSERT INTO deposit_status_changes (deposit_id, from_status, to_status, cause, actor, note, created_at)
  SELECT id, from_status, to_status, cause, actor, note, $7::timestamptz FROM v ORDER BY n
)
SELECT u.*, m.notification_url AS merchant_notification_url, m.settlement_currency AS merchant_settlement_currency
FROM u JOIN merchants m ON m.id = u.merchant_id`;

type UpdatedRow = DepositRow & { merchant_notification_url: string | null; merchant_settlement_currency: string };

interface Planned {
  at: number;
  req: TransitionRequest;
  from: DepositStatus;
  to: DepositStatus;
}

/**
 * Many status changes inside the caller's transaction, one answer each, in order. The deposits
 * are locked in id order (concurrent batches sharing deposits then never deadlock), and every
 * request is checked against the state the requests before it left its deposit.
 */
export async function transitionDepositsIn(q: Queryable, ctx: AppContext, requests: readonly TransitionRequest[]): Promise<TransitionOutcome[]> {
  const out = new Array<TransitionOutcome>(requests.length);
  const ids = [...new Set(requests.map((r) => r.depositId).filter(isIntId))];
  // Only what the checks read; the UPDATE returns the whole rows.
  const locked = ids.length === 0 ? [] : (await q.query<TransitionSubject>(
    'SELECT id, merchant_id, status, country, payment_method FROM deposits WHERE id = ANY($1::integer[]) ORDER BY id FOR UPDATE', [ids], { name: 'caja_deposit_transition_lock' },
  )).rows;
  const current = new Map<number, TransitionSubject>(locked.map((d) => [d.id, d]));
  const now = ctx.now();
  for (const round of transitionRounds(requests.map((r) => r.depositId))) {
    const planned: Planned[] = [];
    for (const at of round) {
      const req = requests[at]!;
      const d = current.get(req.depositId);
      if (!d || (req.opts.merchantId !== undefined && d.merchant_id !== req.opts.merchantId)) {
        out[at] = { ok: false, error: depositNotFound() };
        continue;
      }
      const to = typeof req.to === 'function' ? req.to(d) : req.to;
      if (to instanceof DepositError) {
        out[at] = { ok: false, error: to };
        continue;
      }
      const check = checkTransition(d.status, to, req.cause, isCrypto(d));
      if (!check.ok) {
        out[at] = { ok: false, error: new DepositError('invalid_transition', `Deposit ${d.id} is ${d.status}: ${check.reason}`) };
        continue;
      }
      planned.push({ at, req, from: d.status, to });
    }
    if (planned.length === 0) continue;
    for (const [k, updated] of (await writeRound(q, ctx, planned, now)).entries()) {
      current.set(updated.id, updated);
      out[planned[k]!.at] = { ok: true, deposit: updated };
    }
  }
  return out;
}

/** Writes one round's changes (each deposit once): the deposits as they now are, in order. */
async function writeRound(q: Queryable, ctx: AppContext, planned: Planned[], now: Date): Promise<DepositRow[]> {
  const { rows } = await q.query<UpdatedRow>(
    UPDATE_SQL,
    [
      planned.map((p) => p.req.depositId), planned.map((p) => p.to), planned.map((p) => p.from), planned.map((p) => p.req.cause),
      planned.map((p) => p.req.opts.actor), planned.map((p) => p.req.opts.note ?? null), now,
    ],
    { name: 'caja_deposit_transitions' },
  );
  const byId = new Map(rows.map(({ merchant_notification_url, merchant_settlement_currency, ...d }) => [d.id, { d: d as DepositRow, merchant_notification_url, merchant_settlement_currency }]));
  const written = planned.map((p) => byId.get(p.req.depositId)!);
  await creditDeposits(
    q, ctx,
    written.filter((w, k) => planned[k]!.to === 'COMPLETED' && !isCrypto(w.d)).map((w) => ({ deposit: w.d, settlementCurrency: w.merchant_settlement_currency })),
    now,
  );
  for (const [k, w] of written.entries()) {
    const audit = planned[k]!.req.opts.audit;
    if (audit) await recordAudit(q, audit, w.d);
  }
  const events: NewEvent[] = [];
  for (const [k, w] of written.entries()) {
    const { req, from, to } = planned[k]!;
    events.push({
      merchantId: w.d.merchant_id,
      type: 'deposit.status_changed',
      subjectType: 'deposit',
      subjectId: w.d.id,
      data: {
        deposit_id: w.d.id, invoice_id: w.d.invoice_id, status: to, previous_status: from,
        cause: req.cause, actor: req.opts.actor, at: now.toISOString(), ...(req.opts.note ? { note: req.opts.note } : {}),
      },
      notifications: await depositNotifications(q, ctx, w.d, w.merchant_notification_url),
    });
  }
  await recordEvents(q, events);
  return written.map((w) => w.d);
}

function answer(o: TransitionOutcome): DepositRow {
  if (!o.ok) throw o.error;
  return o.deposit;
}

/** Every change or none (workers): throws the first one's error, and the caller's transaction rolls back. */
export async function transitionAllIn(q: Queryable, ctx: AppContext, requests: readonly TransitionRequest[]): Promise<DepositRow[]> {
  return (await transitionDepositsIn(q, ctx, requests)).map(answer);
}

/** One status change inside the caller's transaction; throws DepositError not_found or invalid_transition. */
export async function transitionDepositIn(
  q: Queryable,
  ctx: AppContext,
  depositId: number,
  to: DepositStatus,
  cause: TransitionCause,
  opts: TransitionOptions,
): Promise<DepositRow> {
  return answer((await transitionDepositsIn(q, ctx, [{ depositId, to, cause, opts }]))[0]!);
}

// CAJA_TRANSITION_BATCH_SIZE changes a transaction at most, CAJA_TRANSITION_BATCH_IN_FLIGHT
// transactions at a time per process (each holds a pool connection; one by default, as creations:
// a batch costs about 1.6 ms of PostgreSQL's CPU whatever its size, so fewer and larger batches
// cost less per change): docs/performance.md, Hot accounts.
// Generic plans: every statement of the batch reads and writes by arrays of ids and values, and
// planning them again for each batch was a measured share of PostgreSQL's CPU.
const transitionBatcher = batcherPerDatabase<TransitionRequest, TransitionOutcome>(
  (ctx) => new Batcher((requests) => ctx.db.tx((q) => transitionDepositsIn(q, ctx, requests), { genericPlans: true }), ctx.config.transitionBatch),
);

/**
 * One status change in its own transaction, shared with those other requests ask for at the same
 * time. A batch whose COMMIT was in doubt is resolved by the failover hold (src/db/db.ts); one
 * still unavailable past the hold fails (503) for every request of its batch, never answered 2xx
 * for a write that may be lost; a batch that fails as a whole otherwise is written request by request.
 */
export async function transitionDeposit(
  ctx: AppContext,
  depositId: number,
  to: TransitionRequest['to'],
  cause: TransitionCause,
  opts: TransitionOptions,
): Promise<DepositRow> {
  return answer(await transitionBatcher(ctx).submit({ depositId, to, cause, opts }));
}
