// Migrations on PostgreSQL when several processes start at once on an empty database (as
// CAJA_PROCESSES=N does): every one of them must come up, and each migration is applied once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDb } from '../../src/db/db.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { createScratchDatabase, postgresUrl } from '../helpers/databases.ts';

const pgUrl = postgresUrl();

test('processes migrating one empty database at once all succeed; each migration is applied once', { skip: pgUrl ? false : 'needs DATABASE_URL (PostgreSQL)' }, async () => {
  const all = listMigrations().map((m) => m.version);
  // Several rounds, since a race depends on timing (before the fix, four at once lost it every time).
  for (let round = 0; round < 5; round++) {
    const scratch = await createScratchDatabase(pgUrl!);
    // Separate pools, as separate processes would have.
    const dbs = await Promise.all([0, 1, 2, 3].map(() => openDb({ databaseUrl: scratch.url })));
    try {
      const results = await Promise.allSettled(dbs.map((db) => migrate(db)));
      const failures = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
      assert.deepEqual(failures, []);
      const applied = results.map((r) => (r as PromiseFulfilledResult<string[]>).value);
      assert.deepEqual(applied.flat().sort(), all, 'every migration applied by exactly one process');
      const { rows } = await dbs[0]!.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(rows.map((r) => r.version), all);
      assert.deepEqual(await migrate(dbs[0]!), [], 'a later start applies nothing');
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await scratch.drop();
    }
  }
});
