// Background workers (notification delivery, deposit expiry, the connectors' reconciliation polls
// and send-backs, refunds sent to providers, cashouts' payout orders, staging's magic-value
// deposits and its bank (every second, staging only),
// connectors' callback registration,
// exchange rates from their sources, retention of the append-only tables, month partitions created ahead, daily settlement reports, the sweep of expired sessions, the folding of balance deltas). Each runs in
// every process; they coordinate through the database, so any number of processes may run.
import type { AppContext } from '../config/context.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { notificationWorker } from '../notifications/worker.ts';
import { depositSandboxWorker, depositWorker } from '../deposits/worker.ts';
import { cashoutWorker, cashoutSandboxWorker } from '../cashouts/worker.ts';
import { connectorWorker } from '../connectors/worker.ts';
import { paymentsWorker } from '../deposits/payments-worker.ts';
import { refundWorker } from '../refunds/worker.ts';
import { ratesWorker } from '../rates/worker.ts';
import { retentionWorker } from '../retention/worker.ts';
import { partitionWorker } from '../retention/partitions.ts';
import { settlementWorker } from '../settlements/worker.ts';
import { sessionSweepWorker } from '../auth/session-sweep.ts';
import { balanceFoldWorker } from '../balances/fold-worker.ts';
import { providerStatementsWorker } from '../reconciliation/statements-worker.ts';

export type { Worker };

type WorkerFactory = (ctx: AppContext) => Worker | null;

const factories: WorkerFactory[] = [notificationWorker, depositWorker, depositSandboxWorker, paymentsWorker, refundWorker, cashoutWorker, cashoutSandboxWorker, connectorWorker, ratesWorker, retentionWorker, partitionWorker, settlementWorker, sessionSweepWorker, balanceFoldWorker, providerStatementsWorker];

export function startWorkers(ctx: AppContext): Worker[] {
  return factories.map((f) => f(ctx)).filter((w): w is Worker => w !== null);
}

export async function stopWorkers(workers: Worker[]): Promise<void> {
  await Promise.all(workers.map((w) => w.stop()));
}
