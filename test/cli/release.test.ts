// What an operator upgrading caja reads: `caja version`, and `caja migrate --status`, which lists
// what is applied and pending and applies nothing (the flag used to be ignored: it migrated).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAJA_CLI } from '../helpers/programs.ts';
import { createScratchDatabase, postgresUrl } from '../helpers/databases.ts';
import { listMigrations } from '../../src/db/migrate.ts';
import { openDb } from '../../src/db/db.ts';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const pgUrl = postgresUrl();

test('`caja version` prints package.json\'s version, without a database', () => {
  const r = spawnSync(process.execPath, [CAJA_CLI, 'version'], { env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), `caja ${version}`);
  assert.equal(spawnSync(process.execPath, [CAJA_CLI, '--version'], { encoding: 'utf8' }).stdout.trim(), `caja ${version}`);
});

test('`caja migrate --status` lists applied and pending migrations and applies nothing', async () => {
  const scratch = pgUrl ? await createScratchDatabase(pgUrl) : null;
  const dataDir = mkdtempSync(join(tmpdir(), 'caja-migrate-status-'));
  const env = { ...process.env, CAJA_MASTER_KEY: '', DATABASE_URL: scratch?.url ?? '', DATA_DIR: dataDir };
  const caja = (...args: string[]) => spawnSync(process.execPath, [CAJA_CLI, ...args], { env, encoding: 'utf8' });
  const all = listMigrations().map((m) => m.version);
  try {
    const empty = caja('migrate', '--status');
    assert.equal(empty.status, 0, empty.stderr);
    const lines = empty.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, -1), all.map((v) => `${v}  pending`));
    assert.equal(lines.at(-1), `caja ${version}: 0 applied, ${all.length} pending`);
    assert.equal(caja('migrate', '--stats').status, 64, 'an unknown option is a usage error, not a migration');

    const migrated = caja('migrate');
    assert.equal(migrated.status, 0, migrated.stderr);
    assert.match(migrated.stdout, /^applied: 001_/);
    // Applied by a newer caja: shown as such (a downgrade would run against it).
    const db = await openDb(scratch ? { databaseUrl: scratch.url } : { dataDir });
    try {
      await db.query(`INSERT INTO schema_migrations (version) VALUES ('999_from_the_future')`);
    } finally {
      await db.close();
    }
    const after = caja('migrate', '--status');
    assert.equal(after.status, 0, after.stderr);
    const rows = after.stdout.trim().split('\n');
    assert.equal(rows.length, all.length + 2);
    for (const [i, v] of all.entries()) assert.match(rows[i]!, new RegExp(`^${v}  applied \\d{4}-\\d\\d-\\d\\dT`));
    assert.match(rows.at(-2)!, new RegExp(`^999_from_the_future  applied .*, unknown to caja ${version.replace(/\./g, '\\.')}$`));
    assert.equal(rows.at(-1), `caja ${version}: ${all.length} applied, 0 pending, 1 applied by a newer version`);
    assert.equal(caja('migrate').stdout.trim(), 'database is up to date');
  } finally {
    await scratch?.drop();
  }
});
