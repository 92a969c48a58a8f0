// The group-commit batcher (src/db/batcher.ts): items submitted while the in-flight limit is
// reached share the next write; a write that fails as a whole is retried item by item, so only
// the item at fault fails; every promise settles after its write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Batcher } from '../../src/db/batcher.ts';
import { DatabaseUnavailableError } from '../../src/db/unavailable.ts';

const tick = () => new Promise((r) => setTimeout(r, 5));

test('an item goes at once while a slot is free; later ones share the next write', async () => {
  const writes: number[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const b = new Batcher<number, number>(async (items) => {
    writes.push(items);
    if (writes.length === 1) await gate;
    return items.map((i) => i * 10);
  }, { maxBatch: 3, maxInFlight: 1 });
  const first = b.submit(1);
  const rest = [2, 3, 4, 5, 6].map((i) => b.submit(i));
  await tick();
  assert.deepEqual(writes, [[1]], 'the others wait while the only slot is busy');
  release();
  assert.deepEqual(await Promise.all([first, ...rest]), [10, 20, 30, 40, 50, 60]);
  assert.deepEqual(writes, [[1], [2, 3, 4], [5, 6]], 'batches of at most maxBatch, in order');
});

test('a failed batch is written item by item: only the bad item fails', async () => {
  const writes: number[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const b = new Batcher<number, number>(async (items) => {
    writes.push(items);
    if (writes.length === 1) await gate;
    if (items.includes(13)) throw new Error('bad value 13');
    return items.map((i) => i + 1);
  }, { maxBatch: 10, maxInFlight: 1 });
  const first = b.submit(0);
  const results = await Promise.allSettled([first, b.submit(12), b.submit(13), b.submit(14)].map((p, i) => (i === 0 ? (release(), p) : p)));
  assert.deepEqual(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)), [1, 13, 'bad value 13', 15]);
  assert.deepEqual(writes, [[0], [12, 13, 14], [12], [13], [14]]);
});

test('a single item whose write fails rejects with the error itself', async () => {
  const b = new Batcher<number, number>(async () => {
    throw new Error('database unavailable');
  }, { maxBatch: 10, maxInFlight: 2 });
  await assert.rejects(b.submit(1), /database unavailable/);
});

test('a batch lost at COMMIT fails every item as unavailable (a 503) and writes none again', async () => {
  const writes: number[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const b = new Batcher<number, number>(async (items) => {
    writes.push(items);
    if (writes.length === 1) {
      await gate;
      return items;
    }
    // The commit's answer never came: the batch may or may not have committed.
    throw new DatabaseUnavailableError('connection lost');
  }, { maxBatch: 10, maxInFlight: 1 });
  const first = b.submit(0);
  const rest = [1, 2, 3].map((i) => b.submit(i));
  release();
  assert.equal(await first, 0);
  for (const r of await Promise.allSettled(rest)) {
    assert.equal(r.status, 'rejected');
    assert.ok(r.status === 'rejected' && r.reason instanceof DatabaseUnavailableError);
  }
  assert.deepEqual(writes, [[0], [1, 2, 3]], 'no item written alone after the batch: that could do it twice');
});
