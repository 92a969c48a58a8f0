// The data directory PGlite's initdb makes, made once and kept as a tarball in the temporary
// directory: each test server's embedded database starts from a copy of it instead of running
// initdb again (about 2.5 s of CPU and a second Postgres instance each, for every server of
// every test file). Nothing of caja is in it: every server still runs all the migrations on its
// own database. The tarball is named after the PGlite version, so an upgrade makes a new one.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

// The package exports no package.json: read the one above its entry point.
const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
const version: string = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')).version;
const tarball = join(tmpdir(), `caja-pglite-initdb-${version}-${userInfo().uid}.tar`);

let made: Promise<Blob> | undefined;

/** A fresh initdb data directory as PGlite's dumpDataDir gives it (for openContext's initialData). */
export function pgliteInitdb(): Promise<Blob> {
  made ??= (async () => {
    if (!existsSync(tarball)) {
      const lite = await PGlite.create();
      const dump = Buffer.from(await (await lite.dumpDataDir('none')).arrayBuffer());
      await lite.close();
      // Written beside and renamed: test files starting at once may all make it, none reads half.
      const part = `${tarball}.${process.pid}`;
      writeFileSync(part, dump);
      renameSync(part, tarball);
    }
    return new Blob([readFileSync(tarball)]);
  })();
  return made;
}
