// The ledger migration (007) moves data, so it carries its own test: write the single-entry
// shape of 002, migrate, and check that every merchant balance is what it was, on a ledger whose
// invariants hold.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPglite } from '../../src/db/db.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { checkLedger } from '../../src/ledger/check.ts';
import { merchantBalances } from '../../src/ledger/ledger.ts';
import { toDb } from '../../src/domain/money.ts';

describe('ledger migration (007)', () => {
  test('single-entry rows become balanced transfers; balances unchanged', async () => {
    const db = await openPglite();
    try {
      await db.query('CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const m of listMigrations().filter((x) => x.version < '007')) {
        await db.exec(m.sql);
        await db.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
      }
      for (const id of [1, 2, 3]) {
        await db.query(`INSERT INTO merchants (id, name, environment, account_validation_enabled, pix_key_validation_enabled) VALUES ($1, $2, 'staging', true, true)`, [id, `M${id}`]);
      }
      const old: [number, string, string, string, number][] = [
        [1, '98.50', 'deposit', 'deposit', 1], [1, '50.00', 'deposit', 'deposit', 2], [1, '-10.00', 'refund', 'refund', 1],
        [2, '20.00', 'deposit', 'deposit', 3],
        // Refunds were never checked against the balance: this one left it negative.
        [3, '5.00', 'deposit', 'deposit', 4], [3, '-7.00', 'refund', 'refund', 2],
      ];
      for (const [merchant, amount, kind, subjectType, subjectId] of old) {
        await db.query(`INSERT INTO ledger_entries (merchant_id, currency, amount, kind, subject_type, subject_id) VALUES ($1, 'USD', $2, $3, $4, $5)`, [merchant, amount, kind, subjectType, subjectId]);
      }
      assert.deepEqual(await migrate(db), listMigrations().filter((x) => x.version >= '007').map((x) => x.version));
      const available = async (id: number) => (await merchantBalances(db, id)).map((b) => [b.currency, toDb(b.available)]);
      assert.deepEqual(await available(1), [['USD', '138.50']]);
      assert.deepEqual(await available(2), [['USD', '20.00']]);
      assert.deepEqual(await available(3), [['USD', '-2.00']]);
      const settlement = (await db.query(`SELECT balance FROM ledger_accounts WHERE merchant_key = 0 AND kind = 'settlement'`)).rows[0].balance;
      assert.equal(settlement, '-156.50');
      const kinds = (await db.query('SELECT kind, count(*)::int AS n FROM ledger_transfers GROUP BY kind ORDER BY kind')).rows;
      assert.deepEqual(kinds, [{ kind: 'deposit.credit', n: 4 }, { kind: 'refund.debit', n: 2 }]);
      const report = await checkLedger(db);
      assert.deepEqual(report.problems, ['available never below zero: merchant 3 has -2.00 USD available'], 'only the balance that was already negative is reported');
      // New writes are held to the rule even though the old row is not.
      await assert.rejects(db.query(`UPDATE ledger_accounts SET balance = -0.01 WHERE merchant_key = 1 AND kind = 'available'`), /ledger_available_not_negative/);
      assert.equal((await db.query(`SELECT to_regclass('ledger_entries_v1') AS t`)).rows[0].t, null, 'the old table is gone');
    } finally {
      await db.close();
    }
  });
});
