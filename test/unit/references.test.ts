import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DIGITS, newReference, UPPER_ALPHANUMERIC } from '../../src/domain/references.ts';

test('a reference keeps its prefix, length and alphabet, and two draws differ', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const r = newReference('CAJA', 30, UPPER_ALPHANUMERIC);
    assert.match(r, /^CAJA[A-Z0-9]{26}$/);
    seen.add(r);
  }
  assert.equal(seen.size, 2000);
  assert.match(newReference('', 7, DIGITS), /^\d{7}$/);
  assert.throws(() => newReference('ABC', 3), RangeError);
});
