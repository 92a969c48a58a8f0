// The compiled server that `npm start` and production run (scripts/build.mjs): tests and
// benchmarks that start caja as a process start that, not the TypeScript sources. `npm test` and
// `npm run bench` build it first; a test file run on its own builds it when it is missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function buildServer(): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`scripts/build.mjs failed (exit ${r.status})`);
}

/** The path of dist/main.mjs, built if it is not there yet. */
export function serverEntry(): string {
  const entry = join(ROOT, 'dist', 'main.mjs');
  if (!existsSync(entry)) buildServer();
  return entry;
}
