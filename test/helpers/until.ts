// Waiting in tests for what a server, a worker or a simulator does in its own time.
import assert from 'node:assert/strict';

/** Reads until `ok` holds (every 50 ms, at most `ms`), failing with `what` and the last value read. */
export async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  let last: T = await read();
  while (!ok(last)) {
    if (Date.now() > end) assert.fail(`${what}: still ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  return last;
}
