import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  add, cmp, dec, divideRate, eq, fromDb, isPositive, isZero, multiplyRate, parseAmount,
  percentOf, rescale, sub, sum, toDb, toFixed, toJsonNumber, toPlainString, type Decimal,
} from '../../src/domain/money.ts';

function ok(input: unknown, opts = {}): Decimal {
  const r = parseAmount(input, opts);
  assert.equal(r.ok, true, `expected ${String(input)} to parse: ${JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
  return (r as { ok: true; value: Decimal }).value;
}
function reason(input: unknown, opts = {}): string {
  const r = parseAmount(input, opts);
  assert.equal(r.ok, false, `expected ${String(input)} to be rejected`);
  return (r as { ok: false; reason: string }).reason;
}

test('parseAmount accepts plain decimal strings at scale 2', () => {
  assert.equal(toFixed(ok('10'), 2), '10.00');
  assert.equal(toFixed(ok('10.5'), 2), '10.50');
  assert.equal(toFixed(ok('10.50'), 2), '10.50');
  assert.equal(toFixed(ok('0.01'), 2), '0.01');
  assert.equal(ok('0.01').units, 1n);
  assert.equal(ok('10.5').scale, 2);
  assert.equal(toFixed(ok('007.10'), 2), '7.10');
});

test('parseAmount keeps 18-digit amounts exact', () => {
  const v = ok('123456789012345678.99');
  assert.equal(v.units, 12345678901234567899n);
  assert.equal(toFixed(v, 2), '123456789012345678.99');
  assert.equal(toDb(add(v, ok('0.01'))), '123456789012345679.00');
});

test('parseAmount rejects malformed strings', () => {
  const fmt = 'must be a decimal number with at most 2 decimals';
  for (const bad of ['', ' 10', '10 ', '+10', '1e3', '10.', '.5', '10.505', '1,00', 'abc', '0x10', '10.5.1', 'NaN', 'Infinity', '١٠']) {
    assert.equal(reason(bad), fmt, bad);
  }
  assert.equal(reason('-5'), 'must be greater than 0');
  assert.equal(reason(null), fmt);
  assert.equal(reason({}), fmt);
  assert.equal(reason(10n), fmt);
});

test('parseAmount enforces integer digits and positivity', () => {
  assert.equal(reason('1234567890123456789'), 'must have at most 18 integer digits');
  assert.equal(toFixed(ok('0000000000000000000001'), 2), '1.00'); // leading zeros are not digits of value
  assert.equal(reason('0'), 'must be greater than 0');
  assert.equal(reason('0.00'), 'must be greater than 0');
  assert.equal(reason(0), 'must be greater than 0');
  assert.equal(isZero(ok('0', { allowZero: true })), true);
  assert.equal(reason('-1', { allowZero: true }), 'must not be negative');
  assert.equal(toFixed(ok('-1.5', { allowNegative: true }), 2), '-1.50');
  assert.equal(reason('123', { maxIntegerDigits: 2 }), 'must have at most 2 integer digits');
});

test('parseAmount honours maxDecimals', () => {
  assert.equal(reason('1.5', { maxDecimals: 0 }), 'must be a decimal number with at most 0 decimals');
  const v = ok('1.123456', { maxDecimals: 6 });
  assert.equal(v.units, 1123456n);
  assert.equal(v.scale, 6);
});

test('parseAmount converts numbers through their shortest string', () => {
  assert.equal(toFixed(ok(10.1), 2), '10.10');
  assert.equal(toFixed(ok(0.07), 2), '0.07');
  assert.equal(toFixed(ok(100), 2), '100.00');
  assert.equal(reason(0.1 + 0.2), 'must be a decimal number with at most 2 decimals'); // 0.30000000000000004
  assert.equal(reason(NaN), 'must be a decimal number with at most 2 decimals');
  assert.equal(reason(Infinity), 'must be a decimal number with at most 2 decimals');
  assert.equal(reason(1e21), 'must be a decimal number with at most 2 decimals');
  assert.equal(reason(-0), 'must be greater than 0');
  assert.equal(reason(-3), 'must be greater than 0');
});

test('add, sub, cmp align scales', () => {
  assert.equal(toPlainString(add(dec('1.5'), dec('2.25'))), '3.75');
  assert.equal(toDb(sub(dec('1.5'), dec('2.25'))), '-0.75');
  assert.equal(cmp(dec('10.5'), dec('10.50')), 0);
  assert.equal(eq(dec('10.5'), dec('10.50')), true);
  assert.equal(cmp(dec('10.49'), dec('10.5')), -1);
  assert.equal(cmp(dec('-1'), dec('-2')), 1);
  assert.equal(isPositive(dec('0.01')), true);
  assert.equal(isPositive(dec('0')), false);
  assert.equal(isZero(dec('0.000')), true);
  assert.equal(toDb(sum([dec('0.1'), dec('0.2'), dec('0.3')])), '0.60');
});

test('toFixed rounds half-up away from zero by default, and other modes', () => {
  assert.equal(toFixed(dec('1.005'), 2), '1.01'); // float toFixed would give 1.00
  assert.equal(toFixed(dec('1.004'), 2), '1.00');
  assert.equal(toFixed(dec('-1.005'), 2), '-1.01');
  assert.equal(toFixed(dec('2.5'), 0), '3');
  assert.equal(toFixed(dec('2.5'), 0, 'half-even'), '2');
  assert.equal(toFixed(dec('3.5'), 0, 'half-even'), '4');
  assert.equal(toFixed(dec('2.51'), 0, 'half-even'), '3');
  assert.equal(toFixed(dec('1.999'), 2, 'down'), '1.99');
  assert.equal(toFixed(dec('-1.999'), 2, 'down'), '-1.99');
  assert.equal(toFixed(dec('1.001'), 2, 'up'), '1.01');
  assert.equal(toFixed(dec('-1.001'), 2, 'floor'), '-1.01');
  assert.equal(toFixed(dec('-1.009'), 2, 'ceil'), '-1.00');
  assert.equal(toFixed(dec('0.004'), 2), '0.00');
  assert.equal(toFixed(dec('5'), 3), '5.000');
  assert.equal(toFixed(dec('123456789012345678.995'), 2), '123456789012345679.00');
});

test('multiplyRate converts exactly, rounding once', () => {
  const usd = dec('100.00');
  assert.equal(toFixed(multiplyRate(usd, '5.432100', 2), 2), '543.21');
  assert.equal(toDb(multiplyRate(dec('0.01'), '0.5', 2)), '0.01'); // 0.005 half-up
  assert.equal(toDb(multiplyRate(dec('0.01'), '0.5', 2, 'half-even')), '0.00');
  assert.equal(toDb(multiplyRate(dec('0.01'), '0.4999', 2)), '0.00');
  assert.equal(toDb(multiplyRate(dec('123456789012345678.99'), '1', 2)), '123456789012345678.99');
  assert.equal(toDb(multiplyRate(dec('123456789012345678.99'), '4000.123456', 2)), '493842397530727024108.15');
  assert.equal(toDb(multiplyRate(dec('19.99'), '17.2345', 4)), '344.5177');
  assert.throws(() => multiplyRate(usd, '0', 2), RangeError);
  assert.throws(() => multiplyRate(usd, '1e3', 2), SyntaxError);
});

test('divideRate is the exact inverse up to the final rounding', () => {
  assert.equal(toDb(divideRate(dec('543.21'), '5.432100', 2)), '100.00');
  assert.equal(toDb(divideRate(dec('100'), '3', 2)), '33.33');
  assert.equal(toDb(divideRate(dec('200'), '3', 2)), '66.67');
  assert.equal(toDb(divideRate(dec('200'), '3', 2, 'down')), '66.66');
  assert.equal(toDb(divideRate(dec('1'), '8', 2)), '0.13'); // 0.125 half-up
  assert.equal(toDb(divideRate(dec('1'), '8', 2, 'half-even')), '0.12');
  assert.equal(toDb(divideRate(dec('1.23456'), '1', 2)), '1.23'); // negative shift path
  assert.equal(toDb(divideRate(dec('10'), '0.25', 0)), '40');
});

test('percentOf', () => {
  assert.equal(toDb(percentOf(dec('200.00'), '10')), '20.00');
  assert.equal(toDb(percentOf(dec('10.05'), '2.5')), '0.25'); // 0.25125
  assert.equal(toDb(percentOf(dec('0.30'), '50')), '0.15');
  assert.equal(toDb(percentOf(dec('0.01'), '50')), '0.01'); // 0.005 half-up
  assert.equal(toDb(percentOf(dec('0.01'), '50', 2, 'down')), '0.00');
  assert.equal(toDb(percentOf(dec('99.99'), '3.5', 4)), '3.4997');
});

test('fromDb / toDb round-trip Postgres numeric text', () => {
  assert.equal(toDb(fromDb('10.50')), '10.50');
  assert.equal(toDb(fromDb('-0.0100')), '-0.0100');
  assert.equal(toDb(fromDb('123456789012345678.99')), '123456789012345678.99');
  assert.equal(toDb(fromDb('42')), '42');
  assert.equal(toDb(rescale(fromDb('42'), 2)), '42.00');
  assert.throws(() => fromDb('NaN'));
  assert.throws(() => fromDb('1e5'));
  assert.throws(() => fromDb(''));
});

test('toJsonNumber only returns numbers that are exact', () => {
  assert.equal(toJsonNumber(dec('10.50')), 10.5);
  assert.equal(toJsonNumber(dec('0.10')), 0.1);
  assert.equal(toJsonNumber(dec('100')), 100);
  assert.equal(toJsonNumber(dec('-0.00')), 0);
  assert.equal(toJsonNumber(dec('-7.25')), -7.25);
  assert.equal(toJsonNumber(dec('9007199254740993')), null); // 2^53 + 1
  assert.equal(toJsonNumber(dec('123456789012345678.99')), null);
  assert.equal(toJsonNumber(dec('9007199254740992')), 9007199254740992);
  assert.equal(toJsonNumber(dec('1000000000000000000000')), null); // would print as 1e+21
});
