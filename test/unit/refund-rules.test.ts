import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dec, toFixed } from '../../src/domain/money.ts';
import { canTransition, cardRefundResult, holdsAmount, refundAmounts, streamlineRefundDesc, streamlineRefundResult } from '../../src/domain/refund-rules.ts';

const deposit = (held = '0', heldLocal = '0') => ({ amount: dec('100.00'), localAmount: dec('543.21'), heldAmount: dec(held), heldLocal: dec(heldLocal) });
const show = (r: ReturnType<typeof refundAmounts>) => (r.ok ? [toFixed(r.amount, 2), toFixed(r.localAmount, 2)] : r.reason);

describe('refund amounts', () => {
  test('absent amount refunds what remains: the whole deposit, the rest after partials, then nothing', () => {
    assert.deepEqual(show(refundAmounts(deposit(), undefined, false)), ['100.00', '543.21']);
    assert.deepEqual(show(refundAmounts(deposit('30.00', '162.96'), undefined, false)), ['70.00', '380.25']);
    assert.match(String(show(refundAmounts(deposit('100.00', '543.21'), undefined, false))), /already fully refunded/);
  });
  test('a partial amount in the deposit currency converts at the deposit rate', () => {
    assert.deepEqual(show(refundAmounts(deposit(), dec('10.00'), false)), ['10.00', '54.32']);
  });
  test('a partial amount in the local currency converts back', () => {
    assert.deepEqual(show(refundAmounts(deposit(), dec('54.32'), true)), ['10.00', '54.32']);
  });
  test('exactly what remains maps to exactly what remains in both currencies', () => {
    assert.deepEqual(show(refundAmounts(deposit('90.00', '488.89'), dec('10.00'), false)), ['10.00', '54.32']);
    assert.deepEqual(show(refundAmounts(deposit('33.33', '181.05'), dec('362.16'), true)), ['66.67', '362.16']);
  });
  test('more than remains is refused; one cent more too', () => {
    assert.match(String(show(refundAmounts(deposit(), dec('100.01'), false))), /exceeds .*100\.00/);
    assert.match(String(show(refundAmounts(deposit('50.00', '271.60'), dec('50.01'), false))), /exceeds .*50\.00/);
    assert.match(String(show(refundAmounts(deposit(), dec('543.22'), true))), /exceeds .*543\.21/);
  });
  test('a tiny local amount never becomes zero in the deposit currency', () => {
    assert.deepEqual(show(refundAmounts(deposit(), dec('0.01'), true)), ['0.01', '0.01']);
  });
  test('zero is refused', () => {
    assert.match(String(show(refundAmounts(deposit(), dec('0.00'), false))), /greater than 0/);
  });
});

describe('refund states and codes', () => {
  test('only PENDING moves', () => {
    assert.ok(canTransition('PENDING', 'COMPLETED'));
    assert.ok(canTransition('PENDING', 'REJECTED'));
    assert.ok(!canTransition('COMPLETED', 'REJECTED'));
    assert.ok(!canTransition('REJECTED', 'COMPLETED'));
  });
  test('which statuses hold part of the deposit', () => {
    assert.deepEqual(['PENDING', 'COMPLETED', 'REJECTED', 'CANCELLED'].map((s) => holdsAmount(s as any)), [true, true, false, false]);
  });
  test('face codes', () => {
    assert.deepEqual(['PENDING', 'COMPLETED', 'CANCELLED', 'REJECTED'].map((s) => streamlineRefundResult(s as any)), ['0', '1', '2', '3']);
    assert.deepEqual(['PENDING', 'COMPLETED', 'CANCELLED', 'REJECTED'].map((s) => streamlineRefundDesc(s as any)), ['Pending', 'Completed', 'Cancelled', 'Rejected']);
    assert.deepEqual(['PENDING', 'COMPLETED', 'REJECTED'].map((s) => cardRefundResult(s as any)), ['IN_PROGRESS', 'SUCCESS', 'REJECTED']);
  });
});
