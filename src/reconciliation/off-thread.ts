// Statement files are parsed off the event loop: in one worker thread (parse-worker.ts) with a
// deadline per file and memory limits, so no file, however built, can stop the server. Files
// queue for the worker one at a time (the deadline counts from when the worker takes the file);
// a file that outlasts its deadline or the memory limit terminates the worker, is refused with
// ParseLimitError, and the next file starts a new worker. The worker is unreferenced when idle,
// so it never keeps a process alive, and ends after a minute idle.
//   Where the worker module is: beside this module once bundled (dist/parse-worker.mjs, built by
// scripts/build.mjs), else the TypeScript source, loaded through tsx (sources and tests).
import { Worker } from 'node:worker_threads';
import { type ParsedStatement, StatementFormatError, type StatementFormat } from './statement.ts';

/** How long one file may take to parse; a day's statement of a busy account takes about a second. */
export const PARSE_DEADLINE_MS = 30_000;
/** The worker's heap: a 128 MB file parses in less. */
export const PARSE_HEAP_MB = 1024;

/** The parse was stopped: it took longer than its deadline or more memory than the worker has. */
export class ParseLimitError extends Error {}

interface Job {
  id: number;
  format: StatementFormat | 'camt';
  bytes: Buffer | string;
  deadlineMs: number;
  resolve: (s: ParsedStatement) => void;
  reject: (e: Error) => void;
}

type Reply = { id: number; ok?: ParsedStatement; formatError?: { format: StatementFormat; at: string; problem: string }; failure?: string };

let worker: Worker | null = null;
let running: { job: Job; timer: NodeJS.Timeout; worker: Worker } | null = null;
const queue: Job[] = [];
let nextId = 1;
let idleTimer: NodeJS.Timeout | null = null;
/** An idle worker ends after this long. */
const IDLE_MS = 60_000;

function startWorker(): Worker {
  const here = import.meta.url;
  const limits = { resourceLimits: { maxOldGenerationSizeMb: PARSE_HEAP_MB, maxYoungGenerationSizeMb: 64 } };
  const w = here.endsWith('.ts')
    ? new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => m.tsImport(${JSON.stringify(new URL('./parse-worker.ts', here).href)}, ${JSON.stringify(here)}))`, { eval: true, ...limits })
    : new Worker(new URL('./parse-worker.mjs', here), limits);
  w.on('message', (reply: Reply) => {
    if (!running || running.worker !== w || reply.id !== running.job.id) return;
    const { job, timer } = running;
    clearTimeout(timer);
    running = null;
    if (reply.ok) job.resolve(reply.ok);
    else if (reply.formatError) job.reject(new StatementFormatError(reply.formatError.format, reply.formatError.at, reply.formatError.problem));
    else job.reject(new Error(`statement parser failed: ${reply.failure}`));
    next();
  });
  // An exit while a file is being parsed: out of memory (or terminated on its deadline, handled there).
  const gone = (err?: Error) => {
    if (worker === w) worker = null;
    // A worker terminated on a deadline exits later: the file it had was answered already.
    if (running?.worker === w) {
      const { job, timer } = running;
      clearTimeout(timer);
      running = null;
      const oom = (err as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      job.reject(oom ? new ParseLimitError(`the statement needs more than ${PARSE_HEAP_MB} MB to parse`) : new Error(`statement parser stopped: ${err?.message ?? 'exited'}`));
      next();
    }
  };
  w.on('error', gone);
  w.on('exit', (code) => gone(new Error(`exited with code ${code}`)));
  return w;
}

function next(): void {
  if (running) return;
  const job = queue.shift();
  if (!job) {
    // Idle: unreferenced, and ended after a minute (the heap of a large file's parse goes with it).
    if (worker) {
      const idle = worker;
      idle.unref();
      idleTimer = setTimeout(() => {
        if (worker === idle && !running) {
          worker = null;
          void idle.terminate();
        }
      }, IDLE_MS);
      idleTimer.unref();
    }
    return;
  }
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  worker ??= startWorker();
  worker.ref();
  const w = worker;
  const timer = setTimeout(() => {
    if (running?.job !== job) return;
    running = null;
    if (worker === w) worker = null;
    void w.terminate();
    job.reject(new ParseLimitError(`the statement took too long to parse (over ${Math.round(job.deadlineMs / 1000)} s)`));
    next();
  }, job.deadlineMs);
  running = { job, timer, worker: w };
  w.postMessage({ id: job.id, format: job.format, bytes: job.bytes });
}

/**
 * Parses a whole file in the worker: the statement, or StatementFormatError (where and what),
 * or ParseLimitError (deadline or memory exceeded).
 */
export function parseStatementOffThread(format: StatementFormat | 'camt', bytes: Buffer | string, deadlineMs = PARSE_DEADLINE_MS): Promise<ParsedStatement> {
  return new Promise((resolve, reject) => {
    queue.push({ id: nextId++, format, bytes, deadlineMs, resolve, reject });
    next();
  });
}
