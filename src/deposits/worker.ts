// The deposit worker: every CAJA_EXPIRY_INTERVAL_MS it cancels PENDING deposits whose
// expiration_date has passed and forgets idempotency keys older than 48 hours (they are promised
// for at least 24) and expired signed-request claims. Staging's magic-value outcomes run on a
// worker of their own every second (depositSandboxWorker), so they land within about a second of
// their due time rather than up to a whole expiry round later.
// Sessions are swept by src/auth/session-sweep.ts and balances folded by
// src/balances/fold-worker.ts, workers of their own. Rows are claimed with FOR UPDATE SKIP
// LOCKED in batches, so any number of processes can run these side by side.
import type { AppContext } from '../config/context.ts';
import { statusAfterPayment, type DepositStatus } from '../domain/deposit-states.ts';
import { DUE_OUTCOMES_INTERVAL_MS, periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { isCrypto } from './service.ts';
import { transitionAllIn, type TransitionRequest } from './transitions.ts';
import { purgeExpiredRequests } from '../auth/replay.ts';
import { completedBySandbox, longestPollSeconds } from '../connectors/registry.ts';

const BATCH = 100;
const KEY_RETENTION_HOURS = 48;

/**
 * Cancels one batch of expired deposits; returns how many. A deposit whose charge is at a
 * connector (Pix through the PSP) waits a grace period past its expiry first (connectorGraceMs):
 * a payment made in time whose webhook, or the poll that finds it, comes a little later still
 * completes it, instead of landing on a cancelled deposit. One without a connector, or at a
 * connector whose deposits the sandbox completes (its kind says so: nothing reports a payment
 * late), is cancelled at once.
 */
export async function expireDueDeposits(ctx: AppContext): Promise<number> {
  return ctx.db.tx(async (q) => {
    const now = ctx.now();
    const { rows } = await q.query<{ id: number }>(
      `SELECT id FROM deposits WHERE status = 'PENDING' AND expires_at <= $1
         AND (connector IS NULL OR connector = ANY($3::text[]) OR expires_at <= $2)
       ORDER BY expires_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      [now, new Date(now.getTime() - connectorGraceMs(ctx)), completedBySandbox(ctx.config)],
    );
    await transitionAllIn(q, ctx, rows.map((r) => ({ depositId: r.id, to: 'CANCELLED', cause: 'expiry', opts: { actor: 'worker' } })));
    return rows.length;
  });
}

/** How long past its expiry a deposit charged at a real provider stays PENDING: two polls (the slowest kind's), 5 to 60 minutes. */
export function connectorGraceMs(ctx: AppContext): number {
  return Math.min(3600_000, Math.max(5 * 60_000, 2 * longestPollSeconds(ctx.config) * 1000));
}

/**
 * Staging: completes or cancels one batch of deposits created with a magic value whose delay is
 * over; returns how many were claimed. The claim (FOR UPDATE SKIP LOCKED) is the one place these
 * outcomes are applied, whichever process runs it. Each second's query reads deposits_sandbox_idx
 * (002_deposits.sql: partial on the PENDING and APPROVED magic-value rows).
 */
export async function runSandboxOutcomes(ctx: AppContext): Promise<number> {
  if (!ctx.config.sandbox) return 0;
  return ctx.db.tx(async (q) => {
    const now = ctx.now();
    const { rows } = await q.query<{ id: number; status: DepositStatus; sandbox_outcome: 'approve' | 'cancel'; country: string; payment_method: string | null }>(
      `SELECT id, status, sandbox_outcome, country, payment_method FROM deposits
       WHERE sandbox_outcome IS NOT NULL AND status IN ('PENDING', 'APPROVED') AND sandbox_due_at <= $1
         -- A HOSTED deposit is paid only once its customer has chosen a method (then at once).
         AND (sandbox_outcome = 'cancel' OR payment_method IS NOT NULL)
       ORDER BY sandbox_due_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      [now],
    );
    const changes: TransitionRequest[] = rows.flatMap((r): TransitionRequest[] => {
      if (r.sandbox_outcome === 'cancel') return r.status === 'PENDING' ? [{ depositId: r.id, to: 'CANCELLED', cause: 'cancel', opts: { actor: 'sandbox' } }] : [];
      return [{ depositId: r.id, to: statusAfterPayment(r.status, isCrypto(r)), cause: 'payment', opts: { actor: 'sandbox' } }];
    });
    await transitionAllIn(q, ctx, changes);
    // A crypto deposit waits one more delay between APPROVED and COMPLETED, like the real flow.
    const approved = changes.filter((c) => c.to === 'APPROVED').map((c) => c.depositId);
    if (approved.length > 0) {
      await q.query('UPDATE deposits SET sandbox_due_at = $2 WHERE id = ANY($1::integer[])', [approved, new Date(now.getTime() + ctx.config.sandboxAutoSeconds * 1000)]);
    }
    return rows.length;
  });
}

export async function purgeIdempotencyKeys(ctx: AppContext): Promise<void> {
  await ctx.db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [new Date(ctx.now().getTime() - KEY_RETENTION_HOURS * 3600_000)]);
  // Signed-request claims past their window: those requests are refused by their date now.
  const { replayGraceHours, batchRows } = ctx.config.retention;
  await purgeExpiredRequests(ctx.db, new Date(ctx.now().getTime() - replayGraceHours * 3600_000), batchRows);
}

/** One pass of the deposit worker (expiry and purges); tests call it directly. */
export async function runDepositJobs(ctx: AppContext): Promise<void> {
  while ((await expireDueDeposits(ctx)) === BATCH);
  await purgeIdempotencyKeys(ctx);
}

/** One pass of the sandbox worker: every magic-value outcome due; tests call it directly. */
export async function runSandboxJobs(ctx: AppContext): Promise<void> {
  while ((await runSandboxOutcomes(ctx)) === BATCH);
}

export function depositWorker(ctx: AppContext): Worker {
  return periodicWorker(ctx, 'deposits', ctx.config.expiryIntervalMs, () => runDepositJobs(ctx));
}

/** Staging only: the magic-value outcomes, every second (DUE_OUTCOMES_INTERVAL_MS). */
export function depositSandboxWorker(ctx: AppContext): Worker | null {
  if (!ctx.config.sandbox) return null;
  return periodicWorker(ctx, 'deposit-sandbox', DUE_OUTCOMES_INTERVAL_MS, () => runSandboxJobs(ctx));
}
