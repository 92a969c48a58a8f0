// The pure rules of bank-initiated returns (src/deposits/returns.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dec, toDb } from '../../src/domain/money.ts';
import { recoverable, returnStatusOf, splitDebit } from '../../src/deposits/returns.ts';

test('a debit takes what available holds and owes the rest', () => {
  const s = (total: string, available: string) => { const r = splitDebit(dec(total), dec(available)); return [toDb(r.covered), toDb(r.owed)]; };
  assert.deepEqual(s('100.00', '150.00'), ['100.00', '0.00']);
  assert.deepEqual(s('100.00', '40.00'), ['40.00', '60.00']);
  assert.deepEqual(s('100.00', '0'), ['0.00', '100.00']);
  assert.deepEqual(s('100.00', '-5.00'), ['0.00', '100.00'], 'a negative balance covers nothing');
});

test('a debt is paid from available up to what is owed', () => {
  assert.equal(toDb(recoverable(dec('30.00'), dec('-50.00'))), '30.00');
  assert.equal(toDb(recoverable(dec('80.00'), dec('-50.00'))), '50.00');
  assert.equal(toDb(recoverable(dec('0'), dec('-50.00'))), '0.00');
  assert.equal(toDb(recoverable(dec('10.00'), dec('0'))), '0.00');
});

test('a deposit is partly or wholly returned by what its returns took', () => {
  assert.equal(returnStatusOf({ returned_amount: '0', payer_amount: '500.00' }), null);
  assert.equal(returnStatusOf({ returned_amount: '100.00', payer_amount: '500.00' }), 'PARTIALLY_RETURNED');
  assert.equal(returnStatusOf({ returned_amount: '500.00', payer_amount: '500.00' }), 'RETURNED');
});
