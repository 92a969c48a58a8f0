// The balance fold worker: every CAJA_EXPIRY_INTERVAL_MS it folds the panel home's figure deltas
// (src/panel/services/stats.ts foldAllDayFigures) and the ledger's balance deltas
// (src/ledger/ledger.ts foldAllDeltas) into their totals, vacuuming each table every 10,000 folded, and pays merchants' debts of returned deposits from their available balances
// (src/deposits/returns.ts recoverDebts: the next credits pay a debt back). The folds claim their rows with FOR UPDATE SKIP LOCKED, so any number of
// processes can run it side by side.
import type { AppContext } from '../config/context.ts';
import { periodicWorker, type Worker } from '../jobs/periodic-worker.ts';
import { foldAllDeltas } from '../ledger/ledger.ts';
import { foldAllDayFigures } from '../panel/services/stats.ts';
import { recoverDebts } from '../deposits/returns.ts';

/** One pass: figure deltas and balance deltas, each until a batch comes back partial; tests call it directly. */
export async function foldBalances(ctx: AppContext): Promise<void> {
  await foldAllDayFigures(ctx.db);
  await foldAllDeltas(ctx.db);
  await recoverDebts(ctx.db);
}

export function balanceFoldWorker(ctx: AppContext): Worker {
  return periodicWorker(ctx, 'balance-fold', ctx.config.expiryIntervalMs, () => foldBalances(ctx));
}
