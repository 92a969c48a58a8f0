// The one id bound and parser (domain/ids.ts) and the search box of the merchant lists (db/paging.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INT_ID_MAX, isIntId, parseId, readIntId } from '../../src/domain/ids.ts';
import { searchTerms } from '../../src/db/paging.ts';

test('a serial id is 1..2^31-1', () => {
  assert.equal(INT_ID_MAX, 2 ** 31 - 1);
  assert.deepEqual([1, INT_ID_MAX, 0, INT_ID_MAX + 1, 1.5, NaN, Infinity, '1'].map(isIntId), [true, true, false, false, false, false, false, false]);
});

test('parseId reads plain digits only, within the bound', () => {
  assert.deepEqual(['1', '2147483647', '2147483648', '0', '-1', '1e3', ' 1', '', 'abc', '99999999999999999'].map((s) => parseId(s)), [1, INT_ID_MAX, null, null, null, null, null, null, null, null]);
  assert.equal(parseId('2147483648', Number.MAX_SAFE_INTEGER), 2147483648);
  assert.equal(parseId(undefined), null);
});

test('readIntId takes a JSON number or its digits in a string', () => {
  assert.deepEqual([7, '7', 0, '0', 2.5, '2.5', INT_ID_MAX + 1, null, {}].map(readIntId), [7, 7, null, null, null, null, null, null, null]);
});

test('the search box: trimmed text, and the id it names when all digits', () => {
  assert.deepEqual(searchTerms(undefined), { text: null, id: null });
  assert.deepEqual(searchTerms('   '), { text: null, id: null });
  assert.deepEqual(searchTerms(' 42 '), { text: '42', id: 42 });
  assert.deepEqual(searchTerms('inv-42'), { text: 'inv-42', id: null });
  assert.deepEqual(searchTerms('2147483648'), { text: '2147483648', id: null });
});
