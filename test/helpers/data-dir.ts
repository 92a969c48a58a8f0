// A DATA_DIR for a CLI test on the embedded database, already holding a migrated PGlite data
// directory: the CLI's first command on an empty DATA_DIR runs initdb and every migration (about
// 2.5 s of CPU more than any later command), which test/db/ and the process tests already cover.
// The migrated directory is made once per PGlite version and set of migrations, from the tarball
// of test servers (pglite-template.ts), beside it in the temporary directory, and copied for each
// test: the CLI then finds a database with nothing left to migrate, as on a second run.
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pgliteTemplate, templateName } from './pglite-template.ts';

let made: Promise<string> | undefined;

/** The migrated PGlite data directory CLI tests copy (made once, beside the tarball). */
export function migratedPgliteDir(): Promise<string> {
  made ??= (async () => {
    const dir = `${templateName()}.d`;
    if (existsSync(dir)) return dir;
    // Made beside and renamed: test files starting at once may each make it, none reads half.
    const part = `${dir}.${process.pid}`;
    rmSync(part, { recursive: true, force: true });
    mkdirSync(part);
    const lite = await PGlite.create({ dataDir: part, loadDataDir: await pgliteTemplate() });
    await lite.close();
    try {
      renameSync(part, dir);
    } catch {
      // Another test file renamed its copy first: the same content, keep theirs.
      rmSync(part, { recursive: true, force: true });
    }
    return dir;
  })();
  return made;
}

/** A new DATA_DIR (prefix as mkdtemp's) whose embedded database is migrated already. */
export async function migratedDataDir(prefix: string): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  // The CLI opens DATA_DIR/pglite (src/db/db.ts openDb).
  cpSync(await migratedPgliteDir(), join(dataDir, 'pglite'), { recursive: true });
  return dataDir;
}
