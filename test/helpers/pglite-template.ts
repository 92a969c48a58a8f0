// An embedded database already made by initdb and migrated, kept as a tarball in the temporary
// directory: each test server's in-memory PGlite starts from a copy of it (openPglite's
// initialData) instead of running initdb and the migrations again, about 3 s of CPU and a second
// Postgres instance at start, for each server of each test file. The tarball is named after what
// made it (PGlite's version, the migration runner, every migration file and this file), so a new or changed
// migration, or a PGlite upgrade, makes a new one; every server still runs migrate(), which finds
// nothing left to apply. A fresh clone makes it on its first test run, so the migrations are still
// applied to an empty PGlite there; test/db/ tests them on their own.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { pgliteDb } from '../../src/db/db.ts';
import { migrate } from '../../src/db/migrate.ts';

const DB_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'db');

/** Where the tarball of the migrated data directory is kept (a directory beside it: migratedDataDir). */
export function templateName(): string {
  // The package exports no package.json: read the one above its entry point.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const hash = createHash('sha256').update(readFileSync(join(dirname(entry), '..', 'package.json')));
  hash.update(readFileSync(join(DB_DIR, 'migrate.ts')));
  // and how this file makes it
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  for (const f of readdirSync(join(DB_DIR, 'migrations')).sort()) hash.update(f).update(readFileSync(join(DB_DIR, 'migrations', f)));
  return join(tmpdir(), `caja-pglite-${userInfo().uid}-${hash.digest('hex').slice(0, 16)}.tar`);
}

let made: Promise<Blob> | undefined;

// Every test server copies the tarball into its memory and PGlite writes each file of it into its
// in-memory file system: about 0.6 s of CPU a server for 43 MB, of which 14 MB are the template
// databases (CREATE DATABASE's sources, which no test server runs) and 16 MB the WAL segment
// holding initdb's and the migrations' records. Dropping the templates and starting a new segment
// after a checkpoint (the old one removed, not recycled into a third) leaves 28 MB and saves about
// 0.2 s of CPU a server; the database the servers use is the same.
async function leaveOnlyWhatServersRead(lite: PGlite): Promise<void> {
  await lite.exec(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
  // One statement each: DROP DATABASE refuses to run in the transaction a multi-statement exec is.
  await lite.exec('DROP DATABASE template1');
  await lite.exec('DROP DATABASE template0');
  await lite.exec('SET wal_recycle = off');
  await lite.exec('CHECKPOINT');
  await lite.query('SELECT pg_switch_wal()');
  await lite.exec('CHECKPOINT');
}

/** A migrated data directory as PGlite's dumpDataDir gives it, for openContext's initialData. */
export function pgliteTemplate(): Promise<Blob> {
  made ??= (async () => {
    const tarball = templateName();
    if (!existsSync(tarball)) {
      const lite = await PGlite.create();
      await migrate(pgliteDb(lite));
      await leaveOnlyWhatServersRead(lite);
      const dump = Buffer.from(await (await lite.dumpDataDir('none')).arrayBuffer());
      await lite.close();
      // Written beside and renamed: test files starting at once may each make it, none reads half.
      const part = `${tarball}.${process.pid}`;
      writeFileSync(part, dump);
      renameSync(part, tarball);
    }
    return new Blob([readFileSync(tarball)]);
  })();
  return made;
}
