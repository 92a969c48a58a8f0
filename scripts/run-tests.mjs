// Runs every test file with node's test runner (through tsx) and ends with the line
// "N passed, N failed", which is what CI reads. Pass file paths to run only those.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

// Tests that start caja as a process start the compiled build: made now, from the sources as they are.
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}

const files = process.argv.length > 2 ? process.argv.slice(2) : findTests('test');
const summaryFile = join(mkdtempSync(join(tmpdir(), 'caja-test-')), 'summary.json');
const result = spawnSync(
  process.execPath,
  [
    '--import', 'tsx', '--test',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`,
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/summary-reporter.mjs', '--test-reporter-destination=stderr',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, CAJA_TEST_SUMMARY: summaryFile, NODE_ENV: 'test' } },
);
let summary = { passed: 0, failed: 1, skipped: 0 };
try {
  summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
} catch {
  console.error('test runner produced no summary');
}
const failed = summary.failed + (result.status !== 0 && summary.failed === 0 ? 1 : 0);
console.log(`${summary.passed} passed, ${failed} failed, ${summary.skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
