// Group commit for the hottest write (deposit creation): items submitted by concurrent requests
// are written together, one statement and one commit for a batch, instead of one each. Under
// load the database's cost per round trip and per commit (WAL flush) is then shared by the batch;
// without load nothing waits: while fewer than `maxInFlight` batches run, an item goes at once.
// Each item's promise settles only when its batch has committed (or failed), so an answer is
// never sent for a write the database might still lose.
import type { AppContext } from '../config/context.ts';
import type { Queryable } from './db.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

export interface BatcherOptions {
  /** Items in one statement at most. */
  maxBatch: number;
  /** Batches written at the same time (each holds a pool connection while it runs). */
  maxInFlight: number;
  /** Told the size of every batch written (metrics). */
  onBatch?: (size: number) => void;
}

interface Pending<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (err: unknown) => void;
}

export class Batcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private inFlight = 0;

  /** Items submitted and not yet handed to a write (read at metrics scrape time). */
  get waiting(): number {
    return this.queue.length;
  }

  /** `write` returns one result per item, in order; it is all-or-nothing (one statement). */
  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly opts: BatcherOptions,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.opts.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.opts.maxBatch);
      this.opts.onBatch?.(batch.length);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(batch: Pending<I, O>[]): Promise<void> {
    try {
      const out = await this.write(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(out[i]!));
    } catch (err) {
      // Lost at COMMIT, the batch may have been written: writing each item again could do it
      // twice, so every item fails as the database does (a 503; their retries are keyed).
      if (batch.length === 1 || isDatabaseUnavailable(err)) return batch.forEach((p) => p.reject(err));
      // The statement failed as a whole (one item's bad value, a deadlock between batches) and
      // wrote nothing: each item is written alone, so only the one at fault fails.
      await Promise.all(
        batch.map(async (p) => {
          try {
            p.resolve((await this.write([p.item]))[0]!);
          } catch (e) {
            p.reject(e);
          }
        }),
      );
    }
  }
}

/**
 * One batcher per database, made on first use: every request of a process shares it (tests run
 * several servers, each with its own database, in one process).
 */
export function batcherPerDatabase<I, O>(make: (ctx: AppContext) => Batcher<I, O>): (ctx: AppContext) => Batcher<I, O> {
  const made = new WeakMap<Queryable, Batcher<I, O>>();
  return (ctx) => {
    let b = made.get(ctx.db);
    if (!b) made.set(ctx.db, (b = make(ctx)));
    return b;
  };
}
