import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACCEPTED_COUNTRIES,
  ISO_CURRENCIES,
  getCountry,
  isCountryAccepted,
} from '../../src/domain/countries.ts';
import { validateState, validateZip } from '../../src/domain/addresses.ts';
import { SAMPLE_USD_RATES } from '../../src/domain/exchange-rates.ts';

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

test('validateState accepts codes, ISO-prefixed codes and names without accents', () => {
  assert.deepEqual(validateState('BR', 'sp'), { ok: true, code: 'SP' });
  assert.deepEqual(validateState('BR', 'BR-RJ'), { ok: true, code: 'RJ' });
  assert.deepEqual(validateState('BR', 'Sao Paulo'), { ok: true, code: 'SP' });
  assert.deepEqual(validateState('MX', 'Nuevo León'), { ok: true, code: 'NLE' });
  assert.deepEqual(validateState('CO', 'Bogota DC'), { ok: true, code: 'DC' });
  assert.deepEqual(validateState('AR', 'Córdoba'), { ok: true, code: 'X' });
  assert.deepEqual(validateState('BR', 'XX'), { ok: false, reason: "unknown state 'XX' for BR" });
  assert.deepEqual(validateState('BR', ''), { ok: false, reason: 'state is required' });
});

test('validateState takes free text where no list is held', () => {
  assert.deepEqual(validateState('KE', ' Nairobi '), { ok: true, code: 'Nairobi' });
  assert.equal(validateState('KE', 'x'.repeat(21)).ok, false);
  assert.equal(validateState('US', 'CA').ok, false);
});

test('validateZip checks fixed formats and caps free text', () => {
  assert.deepEqual(validateZip('BR', '01310-100'), { ok: true, zip: '01310-100' });
  assert.deepEqual(validateZip('BR', '0131010'), { ok: false, reason: 'invalid zip code for BR (e.g. 01310-100)' });
  assert.deepEqual(validateZip('AR', 'c1425dkf'), { ok: true, zip: 'C1425DKF' });
  assert.equal(validateZip('MX', '6700').ok, false);
  assert.equal(validateZip('PY', '001001').ok, true);
  assert.deepEqual(validateZip('UG', 'Plot 12'), { ok: true, zip: 'PLOT 12' });
  assert.equal(validateZip('UG', 'x'.repeat(21)).ok, false);
  assert.equal(validateZip('CM', '').ok, false);
});

test('sample USD rates cover every local currency as positive decimals with up to 6 places', () => {
  assert.equal(SAMPLE_USD_RATES.USD, '1');
  for (const c of ACCEPTED_COUNTRIES) {
    const rate = SAMPLE_USD_RATES[c.currency];
    assert.match(rate ?? '', /^\d+(\.\d{1,6})?$/, c.currency);
    assert.ok(Number(rate) > 0);
  }
  for (const code of Object.keys(SAMPLE_USD_RATES)) assert.ok(ISO_CURRENCIES.has(code), code);
  assert.equal(SAMPLE_USD_RATES.BRL, '5.4321');
  assert.ok(Number(SAMPLE_USD_RATES.ARS) > 500 && Number(SAMPLE_USD_RATES.MXN) < 30);
});
