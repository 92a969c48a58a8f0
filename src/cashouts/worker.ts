// The cashout worker: every CAJA_EXPIRY_INTERVAL_MS it hands PENDING cashouts whose wait
// (CAJA_CASHOUT_DELAY_SECONDS) is over to the bank (→ DELIVERED, no longer cancellable), applies
// the bank's outcome to DELIVERED ones (→ COMPLETED or REJECTED) and the late returns of COMPLETED
// ones (→ REJECTED). Rows are claimed with FOR UPDATE SKIP LOCKED, and a hold, release or cancel
// locks the same row, so a merchant racing the pickup sees exactly one of the two happen. A
// connector must accept a repeated submit of one cashout as the same payout (the staging bank
// does), because a process that dies after submitting and before committing submits it again.
import type { AppContext } from '../context.ts';
import { periodicWorker } from '../periodic-worker.ts';
import type { Worker } from '../workers.ts';
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

/** PENDING cashouts whose wait is over go to the bank. */
export async function deliverDueCashouts(ctx: AppContext, bank: PayoutConnector): Promise<number> {
  return ctx.db.tx(async (q) => {
    const now = ctx.now();
    const { rows } = await q.query<CashoutRow>(
      `SELECT * FROM cashouts WHERE status = 'PENDING' AND pickup_at <= $1 ORDER BY pickup_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      [now],
    );
    for (const c of rows) {
      const { bankReference } = await bank.submit(orderOf(c));
      await transitionCashoutIn(q, ctx, c.id, 'deliver', {
        actor: 'bank', cause: `submitted to ${bank.name}`, bankReference,
        outcomeAt: new Date(now.getTime() + ctx.config.sandboxAutoSeconds * 1000),
      });
    }
    return rows.length;
  });
}

/** DELIVERED cashouts get the bank's answer. */
export async function settleDeliveredCashouts(ctx: AppContext, bank: PayoutConnector): Promise<number> {
  return ctx.db.tx(async (q) => {
    const now = ctx.now();
    const { rows } = await q.query<CashoutRow>(
      `SELECT * FROM cashouts WHERE status = 'DELIVERED' AND outcome_at <= $1 ORDER BY outcome_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      [now],
    );
    for (const c of rows) {
      const outcome = await bank.outcome(orderOf(c), c.bank_reference_id ?? '');
      if (outcome.status === 'processing') continue;
      if (outcome.status === 'rejected') {
        await transitionCashoutIn(q, ctx, c.id, 'reject', { actor: 'bank', cause: 'rejected by the beneficiary bank', rejection: outcome.code });
      } else {
        const returnAt = outcome.returnsWith ? new Date(now.getTime() + ctx.config.cashoutDelaySeconds * 1000) : null;
        await transitionCashoutIn(q, ctx, c.id, 'complete', { actor: 'bank', cause: 'paid to the beneficiary', returnAt });
      }
    }
    return rows.length;
  });
}

/** COMPLETED cashouts the beneficiary bank sent back (staging: magic value 99977). */
export async function returnBouncedCashouts(ctx: AppContext): Promise<number> {
  return ctx.db.tx(async (q) => {
    const { rows } = await q.query<{ id: number }>(
      `SELECT id FROM cashouts WHERE status = 'COMPLETED' AND return_at <= $1 ORDER BY return_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      [ctx.now()],
    );
    for (const c of rows) {
      await transitionCashoutIn(q, ctx, c.id, 'reject', { actor: 'bank', cause: 'returned by the beneficiary bank', rejection: '809' });
    }
    return rows.length;
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
