// The cashout workers. Every CAJA_EXPIRY_INTERVAL_MS the cashout worker runs the payout networks
// the operator configured (STP for MX: src/cashouts/payouts.ts, in any environment). In staging
// the staging bank worker, every second so each step lands within about a second of its due time,
// hands the other PENDING cashouts whose wait (CAJA_CASHOUT_DELAY_SECONDS) is over to the staging
// bank (→ DELIVERED, no longer cancellable), applies the bank's outcome to DELIVERED ones
// (→ COMPLETED or REJECTED, CAJA_SANDBOX_AUTO_SECONDS later) and the late returns of COMPLETED
// ones (→ REJECTED). Rows are claimed with FOR UPDATE SKIP LOCKED, and a hold, release or cancel
// locks the same row, so a merchant racing the pickup sees exactly one of the two happen. A
// connector must accept a repeated submit of one cashout as the same payout (the staging bank
// does), because a process that dies after submitting and before committing submits it again.
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { DUE_OUTCOMES_INTERVAL_MS, periodicWorker } from '../jobs/periodic-worker.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { type PayoutConnector, payoutConnector, payoutOrderOf } from './connector.ts';
import { type CashoutRow, transitionCashoutIn } from './service.ts';
import { countriesWithPayoutConnector, runConnectorPayouts } from './payouts.ts';

const BATCH = 50;

/**
 * Claims up to BATCH cashouts in `status` whose `dueColumn` has passed, oldest first, locked
 * for this transaction (SKIP LOCKED: another process, or a merchant's hold or cancel holding a
 * row, is stepped around), and runs `each` on them in the same transaction.
 */
function claimDue(
  ctx: AppContext,
  status: 'PENDING' | 'DELIVERED' | 'COMPLETED',
  dueColumn: 'pickup_at' | 'outcome_at' | 'return_at',
  each: (q: Queryable, c: CashoutRow, now: Date) => Promise<void>,
  exceptCountries: readonly string[] = [],
): Promise<number> {
  return ctx.db.tx(async (q) => {
    const now = ctx.now();
    const { rows } = await q.query<CashoutRow>(
      `SELECT * FROM cashouts WHERE status = $1 AND ${dueColumn} <= $2 AND NOT (country = ANY($3::text[]))
       ORDER BY ${dueColumn} LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      [status, now, exceptCountries],
    );
    for (const c of rows) await each(q, c, now);
    return rows.length;
  });
}

/** PENDING cashouts whose wait is over go to the bank (but those a configured network pays). */
export function deliverDueCashouts(ctx: AppContext, bank: PayoutConnector, exceptCountries: readonly string[] = []): Promise<number> {
  return claimDue(ctx, 'PENDING', 'pickup_at', async (q, c, now) => {
    const { bankReference } = await bank.submit(payoutOrderOf(c));
    await transitionCashoutIn(q, ctx, c.id, 'deliver', {
      actor: 'bank', cause: `submitted to ${bank.name}`, bankReference,
      outcomeAt: new Date(now.getTime() + ctx.config.sandboxAutoSeconds * 1000),
    });
  }, exceptCountries);
}

/** DELIVERED cashouts get the bank's answer. */
export function settleDeliveredCashouts(ctx: AppContext, bank: PayoutConnector): Promise<number> {
  return claimDue(ctx, 'DELIVERED', 'outcome_at', async (q, c, now) => {
    const outcome = await bank.outcome(payoutOrderOf(c), c.bank_reference_id ?? '');
    if (outcome.status === 'processing') return;
    if (outcome.status === 'rejected') {
      await transitionCashoutIn(q, ctx, c.id, 'reject', { actor: 'bank', cause: 'rejected by the beneficiary bank', rejection: outcome.code });
    } else {
      const returnAt = outcome.returnsWith ? new Date(now.getTime() + ctx.config.cashoutDelaySeconds * 1000) : null;
      await transitionCashoutIn(q, ctx, c.id, 'complete', { actor: 'bank', cause: 'paid to the beneficiary', returnAt });
    }
  });
}

/** COMPLETED cashouts the beneficiary bank sent back (staging: magic value 99977). */
export function returnBouncedCashouts(ctx: AppContext): Promise<number> {
  return claimDue(ctx, 'COMPLETED', 'return_at', async (q, c) => {
    await transitionCashoutIn(q, ctx, c.id, 'reject', { actor: 'bank', cause: 'returned by the beneficiary bank', rejection: '809' });
  });
}

/** One pass of the cashout worker: networks the operator configured (STP for MX), in any environment; tests call it directly. */
export async function runCashoutJobs(ctx: AppContext): Promise<void> {
  await runConnectorPayouts(ctx);
}

/** One pass of the staging bank: every step due (each claim reads its partial index, 008_cashouts.sql); tests call it directly. */
export async function runStagingBank(ctx: AppContext): Promise<void> {
  const bank = payoutConnector(ctx.config);
  if (!bank) return;
  const paidElsewhere = await countriesWithPayoutConnector(ctx);
  while ((await deliverDueCashouts(ctx, bank, paidElsewhere)) === BATCH);
  while ((await settleDeliveredCashouts(ctx, bank)) === BATCH);
  while ((await returnBouncedCashouts(ctx)) === BATCH);
}

export function cashoutWorker(ctx: AppContext): Worker {
  // Also in production: the operator may configure a payout network at any time.
  return periodicWorker(ctx, 'cashouts', ctx.config.expiryIntervalMs, () => runCashoutJobs(ctx));
}

/** Staging only (where the staging bank is): its steps, every second (DUE_OUTCOMES_INTERVAL_MS). */
export function cashoutSandboxWorker(ctx: AppContext): Worker | null {
  if (!payoutConnector(ctx.config)) return null;
  return periodicWorker(ctx, 'cashout-sandbox', DUE_OUTCOMES_INTERVAL_MS, () => runStagingBank(ctx));
}
