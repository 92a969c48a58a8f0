// The worker thread that parses statement files (src/reconciliation/off-thread.ts starts it and
// sends it one file at a time): the parse runs off the server's event loop, under a deadline and
// memory limits set by the starter, which terminates this thread when either is exceeded. For
// each file it posts back the parsed statement, or the format error (where and what), or any
// other failure's message.
import { parentPort } from 'node:worker_threads';
import { parseStatement } from './formats.ts';
import { StatementFormatError, type StatementFormat } from './statement.ts';

parentPort!.on('message', (job: { id: number; format: StatementFormat | 'camt'; bytes: Uint8Array | string }) => {
  try {
    const bytes = typeof job.bytes === 'string' ? job.bytes : Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
    parentPort!.postMessage({ id: job.id, ok: parseStatement(job.format, bytes) });
  } catch (err) {
    parentPort!.postMessage(err instanceof StatementFormatError
      ? { id: job.id, formatError: { format: err.format, at: err.at, problem: err.problem } }
      : { id: job.id, failure: (err as Error)?.message ?? String(err) });
  }
});
