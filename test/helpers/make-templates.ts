// Run once by scripts/run-tests.mjs before any test file starts: makes the migrated PGlite tarball
// of test servers, the CLI tests' migrated data directory and, with DATABASE_URL or
// TEST_DATABASE_URL, the test servers' migrated PostgreSQL template (pg-template.ts) if missing. Made lazily by
// the test files themselves instead, each of the first files starting at once made its own (3.5 s
// of CPU each, six at once) before one of them won the rename.
import { migratedPgliteDir } from './data-dir.ts';
import { pgliteTemplate } from './pglite-template.ts';
import { postgresUrl } from './databases.ts';
import { pgTemplate } from './pg-template.ts';

await pgliteTemplate();
await migratedPgliteDir();
const pgUrl = postgresUrl();
if (pgUrl) await pgTemplate(pgUrl);
