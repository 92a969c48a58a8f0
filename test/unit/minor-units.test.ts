// Amounts in each currency's real units (ISO 4217 minor units from `currency-codes`), one test per
// currency of the catalog: cents in a currency without them are refused, never rounded away;
// conversions land on the minor unit by the one rule (half-up, once, at the end).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capabilitiesOf } from '../../src/config/config.ts';
import { ACCEPTED_COUNTRIES } from '../../src/domain/countries.ts';
import { formatMinor, minorUnits } from '../../src/domain/currencies.ts';
import { validateDepositRequest } from '../../src/domain/deposit-request.ts';
import { dec, divideRate, multiplyRate, toFixed } from '../../src/domain/money.ts';
import { SAMPLE_USD_RATES } from '../../src/domain/exchange-rates.ts';

const rateOf = (c: string) => (SAMPLE_USD_RATES[c] ? dec(SAMPLE_USD_RATES[c]!) : null);
const validate = (body: Record<string, unknown>) => validateDepositRequest(body, { checks: capabilitiesOf('staging'), rateOf });

// ISO 4217 as published; the code reads the list, this pins what the catalog's currencies have.
const ZERO_DECIMAL = new Set(['CLP', 'PYG', 'XAF', 'XOF', 'UGX', 'VND', 'KRW', 'JPY']);

test('the list knows the zero-decimal currencies the issue names', () => {
  for (const c of ZERO_DECIMAL) assert.equal(minorUnits(c), 0, c);
  for (const c of ['USD', 'BRL', 'MXN', 'ARS', 'COP', 'EUR']) assert.equal(minorUnits(c), 2, c);
});

for (const country of ACCEPTED_COUNTRIES) {
  const currency = country.currency;
  test(`${country.code} ${currency}: ${ZERO_DECIMAL.has(currency) ? 'no' : 'two'} decimals drive validation and conversion`, () => {
    const digits = ZERO_DECIMAL.has(currency) ? 0 : 2;
    assert.equal(minorUnits(currency), digits);
    // A local amount with cents: refused (naming amount) where the currency has none.
    const cents = validate({ country: country.code, currency, amount: '10018.84' });
    if (digits === 0) {
      assert.ok(!cents.ok);
      assert.deepEqual(cents.details, [`amount: must be a whole number of ${currency} (${currency} has no minor unit)`]);
      const whole = validate({ country: country.code, currency, amount: '10018.00' });
      assert.ok(whole.ok, whole.ok ? '' : whole.details.join('; '));
      assert.equal(formatMinor(whole.value.localAmount, currency), '10018');
    } else {
      assert.ok(cents.ok, cents.ok ? '' : cents.details.join('; '));
      assert.equal(formatMinor(cents.value.localAmount, currency), '10018.84');
    }
    // USD converted into the local currency: rounded once, half-up, to its minor unit.
    const usd = validate({ country: country.code, currency: 'USD', amount: '13.37' });
    assert.ok(usd.ok, usd.ok ? '' : usd.details.join('; '));
    const rate = SAMPLE_USD_RATES[currency]!;
    const exact = multiplyRate(dec('13.37'), rate, 12);
    assert.equal(usd.value.localAmount.scale, digits);
    assert.equal(toFixed(usd.value.localAmount, digits), toFixed(exact, digits, 'half-up'));
    // USD settlement unchanged: two decimals, whatever the local currency.
    assert.equal(toFixed(usd.value.usdAmount, 2), '13.37');
    const back = validate({ country: country.code, currency, amount: digits === 0 ? '12571' : '125.71' });
    assert.ok(back.ok);
    assert.equal(back.value.usdAmount.scale, 2);
    assert.equal(toFixed(back.value.usdAmount, 2), toFixed(divideRate(back.value.amount, rate, 2), 2));
  });
}

test('the issue’s cases: USD 13.37 in Chile is 12571 CLP, not 12571.14; PYG the same', () => {
  const cl = validate({ country: 'CL', currency: 'USD', amount: '13.37' });
  assert.ok(cl.ok);
  assert.equal(formatMinor(cl.value.localAmount, 'CLP'), '12571');
  const py = validate({ country: 'PY', currency: 'USD', amount: '13.37' });
  assert.ok(py.ok);
  assert.equal(formatMinor(py.value.localAmount, 'PYG'), '104955');
});
