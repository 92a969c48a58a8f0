import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACCEPTED_COUNTRIES,
  ISO_CURRENCIES,
  getCountry,
  isCountryAccepted,
} from '../../src/domain/countries.ts';

const SPEC_ORDER =
  'AR, BR, CL, CM, CN, CO, EC, GH, IN, ID, KE, MY, MX, NG, PA, PE, PH, PY, TH, TZ, UG, UY, VN, ZA';

test('accepted countries are the spec list, in its order', () => {
  assert.equal(ACCEPTED_COUNTRIES.map((c) => c.code).join(', '), SPEC_ORDER);
});

test('isCountryAccepted and getCountry', () => {
  assert.equal(isCountryAccepted('BR'), true);
  assert.equal(isCountryAccepted('br'), true);
  assert.equal(isCountryAccepted('US'), false);
  assert.equal(isCountryAccepted(''), false);
  assert.equal(getCountry('mx')?.name, 'Mexico');
  assert.equal(getCountry('XX'), undefined);
});

test('local currencies are valid ISO 4217 codes; Panama and Ecuador use USD', () => {
  for (const c of ACCEPTED_COUNTRIES) assert.ok(ISO_CURRENCIES.has(c.currency), c.code);
  assert.equal(getCountry('PA')?.currency, 'USD');
  assert.equal(getCountry('EC')?.currency, 'USD');
  assert.equal(getCountry('CM')?.currency, 'XAF');
  assert.equal(getCountry('BR')?.currency, 'BRL');
});

test('ISO_CURRENCIES holds active codes only', () => {
  for (const code of ['USD', 'EUR', 'BRL', 'XOF', 'SLE', 'VES', 'ZWG']) assert.ok(ISO_CURRENCIES.has(code), code);
  for (const code of ['HRK', 'XXX', 'XTS', 'BTC', 'usd', 'ZWL']) assert.ok(!ISO_CURRENCIES.has(code), code);
  assert.ok(ISO_CURRENCIES.size > 170 && ISO_CURRENCIES.size < 185);
});

test('full state lists where required', () => {
  const expected: Record<string, number> = { BR: 27, MX: 32, AR: 24, CO: 33, CL: 16, PE: 25, EC: 24, UY: 19 };
  for (const [code, n] of Object.entries(expected)) assert.equal(getCountry(code)?.states.length, n, code);
});

test('state codes and names are unique within each country', () => {
  for (const c of ACCEPTED_COUNTRIES) {
    const codes = new Set(c.states.map((s) => s.code));
    const names = new Set(c.states.map((s) => s.name.toLowerCase()));
    assert.equal(codes.size, c.states.length, c.code);
    assert.equal(names.size, c.states.length, c.code);
  }
});

test('every country has at least one document type', () => {
  for (const c of ACCEPTED_COUNTRIES) assert.ok(c.documentTypes.length > 0, c.code);
  assert.deepEqual(getCountry('BR')?.documentTypes, ['CPF', 'CNPJ']);
});

test('zip patterns', () => {
  const br = getCountry('BR')!.zipPattern!;
  assert.ok(br.test('01310-100') && br.test('01310100'));
  assert.ok(!br.test('0131-0100') && !br.test('1310100'));
  const ar = getCountry('AR')!.zipPattern!;
  assert.ok(ar.test('1425') && ar.test('C1425DKF'));
  assert.ok(!ar.test('C1425DK') && !ar.test('14250'));
  assert.equal(getCountry('UG')!.zipPattern, undefined);
});
