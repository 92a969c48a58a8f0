// The ledger's invariants, asserted after every ledger scenario (src/ledger/check.ts).
import assert from 'node:assert/strict';
import type { Queryable } from '../../src/db/db.ts';
import { checkLedger } from '../../src/ledger/check.ts';

export async function assertLedgerOk(q: Queryable): Promise<void> {
  const report = await checkLedger(q);
  assert.deepEqual(report.problems, [], 'ledger invariants');
}
