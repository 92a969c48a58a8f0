// The cashout worker: every CAJA_EXPIRY_INTERVAL_MS it hands PENDING cashouts whose wait
// (CAJA_CASHOUT_DELAY_SECONDS) is over to the bank (→ DELIVERED, no longer cancellable), applies
// the bank's outcome to DELIVERED ones (→ COMPLETED or REJECTED) and the late returns of COMPLETED
// ones (→ REJECTED). Rows are claimed with FOR UPDATE SKIP LOCKED, and a hold, release or cancel
// locks the same row, so a merchant racing the pickup sees exactly one of the two happen. A
// connector must accept a repeated submit of one cashout as the same payout (the staging bank
// does), because a process that dies after submitting and before committing submits it again.
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { periodicWorker } from '../server/periodic-worker.ts';
import type { Worker } from '../server/workers.ts';
import { type PayoutConnector, type PayoutOrder, payoutConnector } from './connector.ts';
import { type CashoutRow, transitionCashoutIn } from './service.ts';

const BATCH = 50;

function orderOf(c: CashoutRow): PayoutOrder {
  return {
    cashoutId: c.id, country: c.country, amount: c.local_amount, currency: c.local_currency, bankCode: c.bank_code,
    bankAccount: c.bank_account, bankBranch: c.bank_branch, accountType: c.account_type, documentId: c.document_id,
    beneficiaryName: [c.beneficiary_name, c.beneficiary_lastname].filter(Boolean).join(' '),
  };
}

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
): Promise<number> {
  return ctx.db.tx(async (q) => {
    const now = ctx.now();
    const { rows } = await q.query<CashoutRow>(
      `SELECT * FROM cashouts WHERE status = $1 AND ${dueColumn} <= $2 ORDER BY ${dueColumn} LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      [status, now],
    );
    for (const c of rows) await each(q, c, now);
    return rows.length;
  });
}

/** PENDING cashouts whose wait is over go to the bank. */
export function deliverDueCashouts(ctx: AppContext, bank: PayoutConnector): Promise<number> {
  return claimDue(ctx, 'PENDING', 'pickup_at', async (q, c, now) => {
    const { bankReference } = await bank.submit(orderOf(c));
    await transitionCashoutIn(q, ctx, c.id, 'deliver', {
      actor: 'bank', cause: `submitted to ${bank.name}`, bankReference,
      outcomeAt: new Date(now.getTime() + ctx.config.sandboxAutoSeconds * 1000),
    });
  });
}

/** DELIVERED cashouts get the bank's answer. */
export function settleDeliveredCashouts(ctx: AppContext, bank: PayoutConnector): Promise<number> {
  return claimDue(ctx, 'DELIVERED', 'outcome_at', async (q, c, now) => {
    const outcome = await bank.outcome(orderOf(c), c.bank_reference_id ?? '');
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

/** One pass of everything the worker does; tests call it directly. */
export async function runCashoutJobs(ctx: AppContext): Promise<void> {
  const bank = payoutConnector(ctx.config);
  if (!bank) return;
  while ((await deliverDueCashouts(ctx, bank)) === BATCH);
  while ((await settleDeliveredCashouts(ctx, bank)) === BATCH);
  while ((await returnBouncedCashouts(ctx)) === BATCH);
}

export function cashoutWorker(ctx: AppContext): Worker | null {
  return payoutConnector(ctx.config) ? periodicWorker(ctx, 'cashouts', ctx.config.expiryIntervalMs, () => runCashoutJobs(ctx)) : null;
}
