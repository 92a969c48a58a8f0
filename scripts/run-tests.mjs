// Runs every test file with node's test runner and ends with the line "N passed, N failed, N
// skipped", which is what CI reads. Pass file paths to run only those. The test files are compiled
// first (scripts/build-tests.mjs) into a directory of this run under .test-build/, removed at the
// end, and node runs the compiled modules with source maps; CAJA_TEST_BUILD names that directory
// to the tests, which start the compiled CLI and simulators from it (test/helpers/programs.ts).
//   TEST_CONCURRENCY: how many test files run at once; by default three times the cores, as
// files wait on servers, child processes and Chromium as well as compute (each holds about
// 600 MB). TEST_TIMINGS=1 also prints the slowest files with their wall and CPU time.
//   Files start longest first (by the wall time each took in this clone's last run, else in
// scripts/test-durations.json, made the same way on a quiet machine): in name order, the files
// of a minute (Chromium, the CLI restarting servers, the docs' nine servers) started last and
// ran on after the rest had ended, with a core idle.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTests, builtProgram, builtTest, ROOT } from './build-tests.mjs';

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

// The build, the compilation or the templates failed: no test ran, and CI's last line says so.
function failBeforeTests() {
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}

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
  failBeforeTests();
}

const files = process.argv.length > 2 ? process.argv.slice(2) : findTests('test');
const durationsFile = join(ROOT, '.test-build', 'durations.json');
const known = { ...readJson(join(ROOT, 'scripts', 'test-durations.json')), ...readJson(durationsFile) };
// A file not timed yet goes among the longer ones: it may be a long one.
const expected = (f) => known[f] ?? 20;
files.sort((a, b) => expected(b) - expected(a));
const runDir = mkdtempSync(join(tmpdir(), 'caja-test-'));
mkdirSync(join(ROOT, '.test-build'), { recursive: true });
const buildDir = mkdtempSync(join(ROOT, '.test-build', 'run-'));
process.on('exit', () => rmSync(buildDir, { recursive: true, force: true }));
// Interrupted (Ctrl-C reaches the test processes too): still remove this run's build.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));
try {
  await buildTests(buildDir, files);
} catch {
  failBeforeTests();
}
// The migrated database the test servers and CLI tests start from, made once here rather than by
// each of the first test files at once (test/helpers/make-templates.ts).
const templates = spawnSync(process.execPath, ['--enable-source-maps', '--liftoff-only', builtProgram(buildDir, 'make-templates')], { stdio: 'inherit', env: { ...process.env, CAJA_TEST_BUILD: buildDir } });
if (templates.status !== 0) {
  failBeforeTests();
}
const summaryFile = join(runDir, 'summary.json');
const timingsFile = join(runDir, 'timings.jsonl');
const result = spawnSync(
  process.execPath,
  [
    '--enable-source-maps',
    // Each test file's process starts its own embedded PostgreSQL (WebAssembly) for a minute or
    // less: V8's baseline code for it is enough, and skipping the optimizing tier saves 1 to 2 s
    // of CPU a file (the production server keeps both tiers).
    '--liftoff-only',
    '--import', './scripts/test-file-timing.mjs',
    'scripts/test-files.mjs',
    String(process.env.TEST_CONCURRENCY ?? availableParallelism() * 3),
    ...files.map((f) => builtTest(buildDir, f)),
  ],
  { stdio: 'inherit', env: { ...process.env, CAJA_TEST_BUILD: buildDir, CAJA_TEST_SUMMARY: summaryFile, CAJA_TEST_TIMINGS: timingsFile, NODE_ENV: 'test' } },
);
const rows = existsSync(timingsFile) ? readFileSync(timingsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
if (rows.length) {
  const durations = readJson(durationsFile);
  for (const r of rows) durations[r.file] = Math.round(r.wall * 10) / 10;
  writeFileSync(durationsFile, `${JSON.stringify(durations, null, 1)}\n`);
}
if (process.env.TEST_TIMINGS && rows.length) {
  const cpu = (r) => r.cpu + (r.childrenCpu ?? 0);
  console.log(`\nslowest files (wall s, CPU s with child processes, peak MB), of ${rows.length}; CPU in all: ${rows.reduce((t, r) => t + cpu(r), 0).toFixed(0)} s`);
  for (const r of rows.sort((a, b) => b.wall - a.wall).slice(0, 15)) {
    console.log(`${r.wall.toFixed(1).padStart(7)} ${cpu(r).toFixed(1).padStart(7)} ${String(r.maxRssMB).padStart(6)}  ${r.file}`);
  }
}
let summary = { passed: 0, failed: 1, skipped: 0 };
try {
  summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
} catch {
  console.error('test runner produced no summary');
}
const failed = summary.failed + (result.status !== 0 && summary.failed === 0 ? 1 : 0);
console.log(`${summary.passed} passed, ${failed} failed, ${summary.skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
