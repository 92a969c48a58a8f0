// A PostgreSQL database already migrated, which each test server's scratch database is copied from
// (CREATE DATABASE … TEMPLATE, a fraction of a second) instead of running every migration on an
// empty one (2 to 3 s a server, most of it PostgreSQL's own work, which no test file's CPU time
// shows). Made once a run by scripts/run-tests.mjs (test/helpers/make-templates.ts), or by the
// first server of a file run on its own; named after the migration runner, every migration file
// and this file, with CAJA_SCRATCH_DB_PREFIX in front, so a new or changed migration makes a new
// one. It stays on the server between runs, as the PGlite tarball stays in the temporary
// directory. Test servers and the tests that start caja as a process (migratedScratchDatabase)
// start from it; test/db/ and `caja migrate --status` (test/cli/release.test.ts) migrate empty ones.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { openDb } from '../../src/db/db.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createScratchDatabase } from './databases.ts';

const DB_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'db');
const driver = () => createRequire(import.meta.url)('pg') as typeof pg;

/** The template database's name for the migrations as they are. */
export function pgTemplateName(): string {
  const hash = createHash('sha256').update(readFileSync(join(DB_DIR, 'migrate.ts')));
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  for (const f of readdirSync(join(DB_DIR, 'migrations')).sort()) hash.update(f).update(readFileSync(join(DB_DIR, 'migrations', f)));
  return `${process.env.CAJA_SCRATCH_DB_PREFIX ?? ''}caja_tpl_${hash.digest('hex').slice(0, 16)}`.toLowerCase();
}

const urlOf = (baseUrl: string, name: string) => {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

let made: Promise<string> | undefined;

/** The migrated template's name on the server of baseUrl, made first if it is missing. */
export function pgTemplate(baseUrl: string): Promise<string> {
  made ??= (async () => {
    const name = pgTemplateName();
    const admin = new (driver().Client)({ connectionString: baseUrl });
    await admin.connect();
    try {
      if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
      // Made under a name of its own and renamed: runs starting at once may each make it, none
      // copies a half-migrated one.
      const part = `${name}_${process.pid}`;
      await admin.query(`DROP DATABASE IF EXISTS ${part}`);
      await admin.query(`CREATE DATABASE ${part}`);
      const db = await openDb({ databaseUrl: urlOf(baseUrl, part) });
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
      try {
        await admin.query(`ALTER DATABASE ${part} RENAME TO ${name}`);
      } catch (err) {
        // Another run renamed its copy first (duplicate_database): the same content, keep theirs.
        await admin.query(`DROP DATABASE IF EXISTS ${part}`);
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
      return name;
    } finally {
      await admin.end();
    }
  })();
  made.catch(() => (made = undefined));
  return made;
}

/**
 * A new database on baseUrl's server copied from the migrated template, for a test that starts
 * caja (or points a test server) at a database of its own: the server finds nothing to migrate,
 * as on any start after its first.
 */
export async function migratedScratchDatabase(baseUrl: string, prefix = 'caja_test'): Promise<{ url: string; drop: () => Promise<void> }> {
  return createScratchDatabase(baseUrl, prefix, await pgTemplate(baseUrl));
}
