// Named prepared statements, and `prepared_statements=false` in DATABASE_URL for poolers in
// transaction mode that do not track them (pgbouncer before 1.21, docs/operations.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPostgres } from '../../src/db/db.ts';
import { createScratchDatabase, postgresUrl } from '../helpers/databases.ts';

const base = postgresUrl();
const skip = base ? false : 'needs DATABASE_URL (PostgreSQL)';

async function preparedNames(url: string): Promise<string[]> {
  // One connection, so the second query sees the session the first prepared its statement in.
  const db = openPostgres(url, 1);
  try {
    assert.deepEqual((await db.query<{ n: number }>('SELECT $1::int AS n', [7], { name: 'caja_test_named' })).rows, [{ n: 7 }]);
    await db.tx(async (q) => {
      assert.deepEqual((await q.query<{ n: number }>('SELECT $1::int AS n', [8], { name: 'caja_test_named' })).rows, [{ n: 8 }]);
    });
    return (await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((r) => r.name);
  } finally {
    await db.close();
  }
}

test('named statements are prepared once per connection by default, and never with prepared_statements=false', { skip }, async () => {
  const scratch = await createScratchDatabase(base!);
  try {
    assert.deepEqual(await preparedNames(scratch.url), ['caja_test_named']);
    const url = new URL(scratch.url);
    url.searchParams.set('prepared_statements', 'false');
    assert.deepEqual(await preparedNames(url.toString()), []);
    url.searchParams.set('prepared_statements', 'no');
    assert.throws(() => openPostgres(url.toString()), /prepared_statements must be true or false, got 'no'/);
  } finally {
    await scratch.drop();
  }
});
