import { test } from 'node:test';
import assert from 'node:assert/strict';
test('one', () => assert.equal(1 + 1, 2));
test('two', async (t) => { await t.test('sub', () => assert.ok(true)); });
