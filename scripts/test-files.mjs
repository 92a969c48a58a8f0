// Runs the compiled test files named after the concurrency, in the order given, at most that many
// at once: `node scripts/test-files.mjs <concurrency> <file>...`. `node --test` sorts its files by
// name; scripts/run-tests.mjs starts the longest first. Each file runs in a process of its own
// with this process's node options (source maps, the timing hook). The spec report goes to
// stdout; summary-reporter.mjs counts the results for the runner's closing line.
import { PassThrough } from 'node:stream';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import summary from './summary-reporter.mjs';

const [concurrency, ...files] = process.argv.slice(2);
const events = run({ files, concurrency: Number(concurrency) });
// Both reporters read every event.
const forSpec = new PassThrough({ objectMode: true });
const forSummary = new PassThrough({ objectMode: true });
events.pipe(forSpec);
events.pipe(forSummary);
forSpec.compose(new spec()).pipe(process.stdout);
forSummary.compose(summary).resume();
