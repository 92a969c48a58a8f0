// Deposit state machine, fees, limits and sandbox magic values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTransition, statusAfterPayment, streamlineResult } from '../../src/domain/deposit-states.ts';
import { computeCharges, effectiveSchedule, parsePercent, validateFeeOverrides } from '../../src/domain/fees.ts';
import { exceededLimit, limitWindows, pickRule, type LimitRule } from '../../src/domain/limits.ts';
import { sandboxOutcome } from '../../src/domain/deposit-sandbox.ts';
import { dec, toFixed } from '../../src/domain/money.ts';

test('state machine: allowed transitions', () => {
  assert.ok(checkTransition('PENDING', 'COMPLETED', 'payment', false).ok);
  assert.ok(checkTransition('PENDING', 'CANCELLED', 'expiry', false).ok);
  assert.ok(checkTransition('PENDING', 'CANCELLED', 'cancel', false).ok);
  assert.ok(checkTransition('CANCELLED', 'COMPLETED', 'late_payment', false).ok);
  assert.ok(checkTransition('PENDING', 'APPROVED', 'payment', true).ok);
  assert.ok(checkTransition('APPROVED', 'COMPLETED', 'payment', true).ok);
});

test('state machine: refused transitions', () => {
  for (const to of ['PENDING', 'CANCELLED', 'APPROVED'] as const) {
    assert.equal(checkTransition('COMPLETED', to, 'late_payment', false).ok, false);
  }
  assert.equal(checkTransition('CANCELLED', 'COMPLETED', 'payment', false).ok, false);
  assert.equal(checkTransition('PENDING', 'APPROVED', 'payment', false).ok, false);
  assert.equal(checkTransition('PENDING', 'COMPLETED', 'payment', true).ok, false);
  assert.equal(checkTransition('APPROVED', 'CANCELLED', 'expiry', true).ok, false);
  assert.equal(checkTransition('PENDING', 'COMPLETED', 'expiry', false).ok, false);
  assert.equal(checkTransition('PENDING', 'PENDING', 'payment', false).ok, false);
});

test('payment outcome and streamline result codes', () => {
  assert.equal(statusAfterPayment('PENDING', true), 'APPROVED');
  assert.equal(statusAfterPayment('APPROVED', true), 'COMPLETED');
  assert.equal(statusAfterPayment('PENDING', false), 'COMPLETED');
  assert.deepEqual(['PENDING', 'APPROVED', 'CANCELLED', 'COMPLETED'].map((s) => streamlineResult(s as never)), ['7', '7', '8', '9']);
});

test('fees: who pays changes the customer amount and the merchant credit', () => {
  const amount = dec('100.00');
  const merchantPays = computeCharges(amount, 'VOUCHER', { feeOnPayer: false, surchargeOnPayer: false });
  assert.equal(toFixed(merchantPays.fee, 2), '2.00');
  assert.equal(toFixed(merchantPays.surcharge, 2), '1.00');
  assert.equal(toFixed(merchantPays.payerAmount, 2), '100.00');
  assert.equal(toFixed(merchantPays.merchantAmount, 2), '97.00');
  const payerPays = computeCharges(amount, 'VOUCHER', { feeOnPayer: true, surchargeOnPayer: true });
  assert.equal(toFixed(payerPays.payerAmount, 2), '103.00');
  assert.equal(toFixed(payerPays.merchantAmount, 2), '100.00');
  const transfer = computeCharges(dec('10.00'), 'BANK_TRANSFER', { feeOnPayer: false, surchargeOnPayer: true });
  assert.equal(toFixed(transfer.payerAmount, 2), '10.00');
  assert.equal(toFixed(transfer.fee, 2), '0.15');
});

test("fees: a merchant's overrides replace the global percent of their types only; a surcharge of 0 removes one", () => {
  const o = { fee: { VOUCHER: '3.1234' }, surcharge: { VOUCHER: '0', CREDIT_CARD: '0.5' } };
  const v = computeCharges(dec('100.00'), 'VOUCHER', { feeOnPayer: false, surchargeOnPayer: false }, 2, o);
  assert.deepEqual([toFixed(v.fee, 2), toFixed(v.surcharge, 2), toFixed(v.merchantAmount, 2)], ['3.12', '0.00', '96.88']);
  const card = computeCharges(dec('10.00'), 'CREDIT_CARD', { feeOnPayer: false, surchargeOnPayer: true }, 2, o);
  assert.deepEqual([toFixed(card.fee, 2), toFixed(card.surcharge, 2), toFixed(card.payerAmount, 2)], ['0.35', '0.05', '10.05']);
  const s = effectiveSchedule(o);
  assert.deepEqual([s.fee.VOUCHER, s.fee.BANK_TRANSFER, s.surcharge.BANK_DEPOSIT, s.surcharge.WALLET], ['3.1234', '1.5', '0.5', '0']);
});

test('fees: percentages are 0 to less than 100 with at most 4 decimals; every problem named by its field', () => {
  assert.deepEqual(parsePercent('1.5000'), { ok: true, value: '1.5' });
  assert.deepEqual(parsePercent(0), { ok: true, value: '0' });
  assert.deepEqual(parsePercent('99.9999'), { ok: true, value: '99.9999' });
  for (const bad of ['100', '-0.01', '1.23456', 'abc', '', true, null]) assert.equal(parsePercent(bad).ok, false, String(bad));
  assert.deepEqual(validateFeeOverrides({ fee: { WALLET: '', VOUCHER: null }, surcharge: {} }), { ok: true, value: {} });
  const r = validateFeeOverrides({ fee: { NOPE: '1', CRYPTO: '100' }, other: 1 });
  assert.deepEqual(r.ok ? [] : r.details, ['fee.NOPE: not a method type (BANK_TRANSFER, BANK_DEPOSIT, VOUCHER, CREDIT_CARD, DEBIT_CARD, WALLET, CRYPTO)', 'fee.CRYPTO: must be less than 100', 'other: unknown field (fee, surcharge and chargeback are)']);
  assert.equal(validateFeeOverrides([]).ok, false);
});

const rule = (over: Partial<LimitRule>): LimitRule => ({
  merchantId: 0, country: '*', paymentMethod: '*', perTransaction: null, daily: null, monthly: null, ...over,
});

test('limits: most specific rule wins', () => {
  const rules = [rule({ perTransaction: dec('1') }), rule({ country: 'BR', perTransaction: dec('2') }), rule({ country: 'BR', paymentMethod: 'IX', perTransaction: dec('3') }), rule({ merchantId: 7, perTransaction: dec('4') })];
  assert.equal(pickRule(rules, 1, 'MX', null)?.perTransaction?.units, 1n);
  assert.equal(pickRule(rules, 1, 'BR', null)?.perTransaction?.units, 2n);
  assert.equal(pickRule(rules, 1, 'BR', 'IX')?.perTransaction?.units, 3n);
  assert.equal(pickRule(rules, 7, 'BR', 'IX')?.perTransaction?.units, 4n);
  assert.equal(pickRule([rule({ country: 'BR' })], 1, 'MX', null), null);
});

test('limits: transaction, daily, monthly', () => {
  const r = rule({ perTransaction: dec('100'), daily: dec('150'), monthly: dec('300') });
  const zero = { day: dec('0'), month: dec('0') };
  assert.equal(exceededLimit(r, dec('100'), zero), null);
  assert.equal(exceededLimit(r, dec('100.01'), zero), 'TRANSACTION');
  assert.equal(exceededLimit(r, dec('60'), { day: dec('100'), month: dec('100') }), 'DAILY');
  assert.equal(exceededLimit(r, dec('50'), { day: dec('100'), month: dec('100') }), null);
  assert.equal(exceededLimit(r, dec('50'), { day: dec('0'), month: dec('260') }), 'MONTHLY');
  const w = limitWindows(new Date('2026-03-15T13:45:00Z'));
  assert.equal(w.dayStart.toISOString(), '2026-03-15T00:00:00.000Z');
  assert.equal(w.monthStart.toISOString(), '2026-03-01T00:00:00.000Z');
});

test('sandbox magic values', () => {
  assert.equal(sandboxOutcome('approve@example.com', dec('10.00')), 'approve');
  assert.equal(sandboxOutcome('Approve+42@example.com', dec('10.00')), 'approve');
  assert.equal(sandboxOutcome('cancel@example.com', dec('10.00')), 'cancel');
  assert.equal(sandboxOutcome('ana@example.com', dec('10.77')), 'approve');
  assert.equal(sandboxOutcome(undefined, dec('10.66')), 'cancel');
  assert.equal(sandboxOutcome('approver@example.com', dec('10.01')), null);
});
