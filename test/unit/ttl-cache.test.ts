// The in-process cache of credentials, rates and limit rules (src/cache/ttl-cache.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Caches, TtlCache } from '../../src/cache/ttl-cache.ts';

function counter<T>(values: T[]) {
  let calls = 0;
  return { load: async () => values[calls++] as T, calls: () => calls };
}

test('kept for its time; concurrent misses share one load', async () => {
  let now = 0;
  const c = new TtlCache<string>(1000, 10, () => now);
  const l = counter(['a', 'b']);
  assert.deepEqual(await Promise.all([c.get('k', l.load), c.get('k', l.load), c.get('k', l.load)]), ['a', 'a', 'a']);
  assert.equal(l.calls(), 1);
  now = 999;
  assert.equal(await c.get('k', l.load), 'a');
  now = 1000;
  assert.equal(await c.get('k', l.load), 'b', 'read again once expired');
});

test('what `keep` refuses and failed loads are not kept; ttl 0 always loads', async () => {
  const c = new TtlCache<string | null>(1000);
  const l = counter([null, 'x']);
  assert.equal(await c.get('k', l.load, (v) => v !== null), null);
  assert.equal(await c.get('k', l.load, (v) => v !== null), 'x');
  let fail = true;
  const flaky = async () => {
    if (fail) throw new Error('db down');
    return 'y';
  };
  await assert.rejects(c.get('f', flaky), /db down/);
  fail = false;
  assert.equal(await c.get('f', flaky), 'y');
  const off = new TtlCache<string>(0);
  const o = counter(['1', '2']);
  assert.deepEqual([await off.get('k', o.load), await off.get('k', o.load)], ['1', '2']);
});

test('a load that began before a change is not stored; the oldest entry leaves past the bound', async () => {
  const caches = new Caches(60_000);
  const c = caches.of<string>('rates');
  let release!: (v: string) => void;
  const slow = c.get('k', () => new Promise<string>((r) => (release = r)));
  caches.changed();
  const fresh = c.get('k', async () => 'new');
  release('old');
  assert.equal(await slow, 'old');
  assert.equal(await fresh, 'new');
  assert.equal(await c.get('k', async () => 'newer'), 'new', 'the load after the change is the one kept');
  const small = new TtlCache<number>(60_000, 2);
  for (const k of ['a', 'b', 'c']) await small.get(k, async () => 1);
  const l = counter([2]);
  assert.equal(await small.get('a', l.load), 2, "'a' was evicted");
  assert.equal(await small.get('c', async () => 3), 1, "'c' stayed");
});
