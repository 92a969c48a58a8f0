import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  boletoDateFromFactor, boletoDueFactor, boletoFromDigitableLine, boletoMod11, buildBoleto,
  buildNumericReference, buildVoucherBarcode, digitableLineFromBarcode, formatDigitableLine,
  isValidBoletoBarcode, isValidLuhn, isValidNumericReference, isValidVoucherBarcode, luhnCheckDigit,
  parseBoletoBarcode, parseVoucherBarcode,
} from '../../src/domain/vouchers.ts';

// A Banco do Brasil boleto widely used as a sample by boleto validators: R$ 1,00 due 2007-12-31.
const BB_BARCODE = '00193373700000001000500940144816060680935031';
const BB_LINE = '00190500954014481606906809350314337370000000100';

test('the published boleto pair is consistent', () => {
  assert.equal(isValidBoletoBarcode(BB_BARCODE), true);
  assert.equal(digitableLineFromBarcode(BB_BARCODE), BB_LINE);
  assert.deepEqual(boletoFromDigitableLine(BB_LINE), { ok: true, barCode: BB_BARCODE });
  assert.equal(formatDigitableLine(BB_LINE), '00190.50095 40144.816069 06809.350314 3 37370000000100');
  assert.deepEqual(boletoFromDigitableLine(formatDigitableLine(BB_LINE)), { ok: true, barCode: BB_BARCODE });
  assert.deepEqual(parseBoletoBarcode(BB_BARCODE), {
    bankCode: '001', currency: '9', dueFactor: 3737, amount: '1.00', freeField: '0500940144816060680935031',
  });
  assert.equal(boletoDateFromFactor(3737, '2008-01-15'), '2007-12-31');
});

test('buildBoleto reproduces the published boleto', () => {
  const b = buildBoleto({ bankCode: '001', dueDate: '2007-12-31', amount: '1.00', freeField25: '0500940144816060680935031' });
  assert.equal(b.barCode, BB_BARCODE);
  assert.equal(b.digitableLine, BB_LINE);
  assert.equal(b.digitableLineFormatted, '00190.50095 40144.816069 06809.350314 3 37370000000100');
});

test('general check digit: mod 11 with 0, 10 and 11 mapped to 1', () => {
  assert.equal(boletoMod11('0019373700000001000500940144816060680935031'), 3);
  // Search for bodies whose raw result would be 10/11 and confirm they map to 1.
  let seen = 0;
  for (let n = 0; n < 200 && seen < 2; n++) {
    const body = String(n).padStart(43, '0');
    let sum = 0, w = 2;
    for (let i = 42; i >= 0; i--) { sum += Number(body[i]) * w; w = w === 9 ? 2 : w + 1; }
    const raw = 11 - (sum % 11);
    if (raw >= 10) { assert.equal(boletoMod11(body), 1); seen++; }
  }
  assert.ok(seen > 0);
});

test('damaged boletos are rejected', () => {
  assert.equal(isValidBoletoBarcode(BB_BARCODE.replace(/1$/, '2')), false);
  assert.equal(isValidBoletoBarcode(BB_BARCODE.slice(1)), false);
  const r1 = boletoFromDigitableLine('1' + BB_LINE.slice(1));
  assert.deepEqual(r1, { ok: false, reason: 'check digit of field 1 does not match' });
  const r2 = boletoFromDigitableLine(BB_LINE.slice(0, 12) + '9' + BB_LINE.slice(13));
  assert.deepEqual(r2, { ok: false, reason: 'check digit of field 2 does not match' });
  // Changing the value changes no field check digit, only the general one.
  const r4 = boletoFromDigitableLine(BB_LINE.slice(0, -1) + '1');
  assert.deepEqual(r4, { ok: false, reason: 'general check digit does not match' });
  assert.equal(boletoFromDigitableLine('123').ok, false);
  assert.equal(parseBoletoBarcode('0'.repeat(44)), null);
});

test('due factor: base date, the 2025 rollover and São Paulo calendar dates', () => {
  assert.equal(boletoDueFactor('2000-07-03'), 1000);
  assert.equal(boletoDueFactor('2007-12-31'), 3737);
  assert.equal(boletoDueFactor('2025-02-21'), 9999);
  assert.equal(boletoDueFactor('2025-02-22'), 1000);
  assert.equal(boletoDueFactor('2025-02-23'), 1001);
  assert.equal(boletoDueFactor('2049-10-13'), 9999); // end of the second cycle, 9000 days later
  assert.equal(boletoDueFactor('2049-10-14'), 1000);
  assert.throws(() => boletoDueFactor('2000-07-02'), /before 2000-07-03/);
  assert.throws(() => boletoDueFactor('2025-13-01'), /invalid date/);
  // 02:00 UTC on the 22nd is still the 21st in São Paulo (UTC−3).
  assert.equal(boletoDueFactor(new Date('2025-02-22T02:00:00Z')), 9999);
  assert.equal(boletoDueFactor(new Date('2025-02-22T03:00:00Z')), 1000);
});

test('factor back to a date picks the cycle nearest the reference', () => {
  assert.equal(boletoDateFromFactor(1000, '2001-01-01'), '2000-07-03');
  assert.equal(boletoDateFromFactor(1000, '2025-02-01'), '2025-02-22');
  assert.equal(boletoDateFromFactor(9999, '2025-03-01'), '2025-02-21');
  assert.equal(boletoDateFromFactor(1234, '2025-06-01'), '2025-10-14');
  assert.equal(boletoDateFromFactor(0), null);
  assert.throws(() => boletoDateFromFactor(999));
});

test('buildBoleto after the rollover, with no due date and bad input', () => {
  const b = buildBoleto({ bankCode: '237', dueDate: '2025-03-10', amount: '1234.56', freeField25: '1234567890123456789012345' });
  assert.equal(isValidBoletoBarcode(b.barCode), true);
  assert.equal(b.barCode.slice(5, 9), '1016');
  assert.equal(b.barCode.slice(9, 19), '0000123456');
  assert.deepEqual(boletoFromDigitableLine(b.digitableLine), { ok: true, barCode: b.barCode });
  assert.equal(parseBoletoBarcode(b.barCode)!.amount, '1234.56');

  const open = buildBoleto({ bankCode: '341', dueDate: null, amount: '0', freeField25: '0'.repeat(25) });
  assert.equal(open.barCode.slice(5, 19), '0'.repeat(14));
  assert.equal(isValidBoletoBarcode(open.barCode), true);

  const base = { bankCode: '001', dueDate: '2025-03-10', amount: '10', freeField25: '0'.repeat(25) };
  assert.throws(() => buildBoleto({ ...base, bankCode: '01' }), /bank code/);
  assert.throws(() => buildBoleto({ ...base, freeField25: '123' }), /free field/);
  assert.throws(() => buildBoleto({ ...base, amount: '100000000.00' }), /amount/);
  assert.throws(() => buildBoleto({ ...base, amount: '1.001' }), /amount/);
  assert.equal(buildBoleto({ ...base, amount: '99999999.99' }).barCode.slice(9, 19), '9999999999');
});

test('Luhn', () => {
  assert.equal(luhnCheckDigit('7992739871'), 3);
  assert.equal(isValidLuhn('79927398713'), true);
  assert.equal(isValidLuhn('79927398714'), false);
  assert.equal(isValidLuhn('4111111111111111'), true);
  assert.equal(isValidLuhn('0079927398713'), true); // leading zeros do not matter
});

test('numeric references', () => {
  const ref = buildNumericReference('9301', 12345, 16);
  assert.equal(ref.length, 16);
  assert.equal(ref.slice(0, 15), '930100000012345');
  assert.equal(isValidLuhn(ref), true);
  assert.equal(isValidNumericReference(ref), true);
  assert.equal(isValidNumericReference(ref, { length: 16, prefix: '9301' }), true);
  assert.equal(isValidNumericReference(ref, { length: 14 }), false);
  assert.equal(isValidNumericReference(ref, { prefix: '9302' }), false);
  // Every single-digit typo is caught.
  for (let i = 0; i < ref.length; i++) {
    const typo = ref.slice(0, i) + ((Number(ref[i]) + 3) % 10) + ref.slice(i + 1);
    assert.equal(isValidNumericReference(typo), false, typo);
  }
  // Adjacent swaps are caught too (except 0↔9, Luhn's known blind spot).
  assert.equal(isValidNumericReference(ref.slice(0, 10) + ref[11] + ref[10] + ref.slice(12)), false);
  assert.equal(buildNumericReference('', 7n, 4), '0075');
  assert.throws(() => buildNumericReference('12', '123456', 8), /longer than 5/);
  assert.throws(() => buildNumericReference('12a', '1', 8), /prefix/);
  assert.throws(() => buildNumericReference('123', '1', 4), /too short/);
  assert.throws(() => buildNumericReference('1', '-5', 8), /body/);
});

test('voucher barcodes are even-length digits that carry amount and date', () => {
  const reference = buildNumericReference('9301', 12345, 16);
  const code = buildVoucherBarcode({ reference, amount: '250.5', dueDate: '2025-07-31' });
  assert.match(code, /^\d+$/);
  assert.equal(code.length % 2, 0);
  assert.equal(code, `0${reference}0000025050250731${code.at(-1)}`);
  assert.equal(isValidVoucherBarcode(code), true);
  assert.deepEqual(parseVoucherBarcode(code), { reference: `0${reference}`, amount: '250.50', dueDate: '2025-07-31' });

  const odd = buildVoucherBarcode({ reference: '12345', amount: '1', dueDate: '2025-01-02' });
  assert.equal(odd.length, 22);
  assert.equal(odd.slice(0, 5), '12345');
  assert.equal(parseVoucherBarcode(odd)!.amount, '1.00');

  // The calendar date is the voucher country's: 03:00 UTC is still the 30th in Bogotá.
  const co = buildVoucherBarcode({ reference: '12345', amount: '1', dueDate: new Date('2025-07-31T03:00:00Z'), timeZone: 'America/Bogota' });
  assert.equal(parseVoucherBarcode(co)!.dueDate, '2025-07-30');

  assert.equal(isValidVoucherBarcode(code.slice(0, -1) + ((Number(code.at(-1)) + 1) % 10)), false);
  assert.equal(parseVoucherBarcode('12'), null);
  assert.throws(() => buildVoucherBarcode({ reference: 'ABC', amount: '1', dueDate: '2025-01-01' }), /digits/);
  assert.throws(() => buildVoucherBarcode({ reference: '1', amount: '0', dueDate: '2025-01-01' }), /amount/);
});
