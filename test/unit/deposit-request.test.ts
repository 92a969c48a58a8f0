import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capabilitiesOf } from '../../src/config/config.ts';
import { validateDepositRequest, type ValidationResult } from '../../src/domain/deposit-request.ts';
import { dec, toFixed } from '../../src/domain/money.ts';
import { SAMPLE_USD_RATES } from '../../src/domain/exchange-rates.ts';

const rateOf = (c: string) => (SAMPLE_USD_RATES[c] ? dec(SAMPLE_USD_RATES[c]!) : null);
const validate = (body: unknown, env: 'staging' | 'production' = 'staging') => validateDepositRequest(body, { checks: capabilitiesOf(env), rateOf });

function ok(r: ValidationResult) {
  assert.ok(r.ok, r.ok ? '' : r.details.join('; '));
  return r.value;
}
function details(r: ValidationResult): string[] {
  assert.ok(!r.ok, 'expected a validation failure');
  return r.details;
}

const BR_PAYER = { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };

test('minimal request: HOSTED, USD default, conversions exact', () => {
  const v = ok(validate({ country: 'br', amount: '10' }));
  assert.equal(v.country, 'BR');
  assert.equal(v.currency, 'USD');
  assert.equal(v.checkoutType, 'HOSTED');
  assert.equal(toFixed(v.localAmount, 2), '54.32');
  assert.equal(toFixed(v.usdAmount, 2), '10.00');
  assert.equal(v.surchargeOnPayer, true);
  assert.equal(v.feeOnPayer, false);
});

test('every failing field is reported at once', () => {
  const d = details(validate({
    amount: '1.234', currency: 'US', invoice_id: 'bad id!', language: 'fr', client_ip: '300.1.1.1',
    description: 'x'.repeat(101), back_url: 'ftp://x', test: 'maybe', payment_types: ['NOPE'],
  }));
  const fields = d.map((x) => x.split(':')[0]);
  for (const f of ['country', 'amount', 'currency', 'invoice_id', 'language', 'client_ip', 'description', 'back_url', 'test', 'payment_types[0]']) {
    assert.ok(fields.includes(f), `${f} missing from ${JSON.stringify(d)}`);
  }
  assert.match(d.find((x) => x.startsWith('country'))!, /is required/);
});

test('invalid country lists the accepted ones', () => {
  const d = details(validate({ country: 'US', amount: 1 }));
  assert.match(d[0]!, /^country: must be one of AR, BR, .*ZA$/);
});

test('amounts: 18 integer digits and 2 decimals, string or number, exact', () => {
  const v = ok(validate({ country: 'BR', amount: '123456789012345678.91', currency: 'BRL' }));
  assert.equal(toFixed(v.amount, 2), '123456789012345678.91');
  assert.equal(toFixed(v.localAmount, 2), '123456789012345678.91');
  ok(validate({ country: 'BR', amount: 10.5 }));
  assert.match(details(validate({ country: 'BR', amount: '1234567890123456789' }))[0]!, /^amount: .*18 integer digits/);
  assert.match(details(validate({ country: 'BR', amount: '10.123' }))[0]!, /^amount: /);
  assert.match(details(validate({ country: 'BR', amount: 0 }))[0]!, /^amount: must be greater than 0/);
  assert.match(details(validate({ country: 'BR', amount: true }))[0]!, /^amount: /);
});

test('invoice_id: pattern and length; numbers accepted as digits', () => {
  assert.equal(ok(validate({ country: 'BR', amount: 1, invoice_id: 'A-b_9' })).invoiceId, 'A-b_9');
  assert.equal(ok(validate({ country: 'BR', amount: 1, invoice_id: 12345 })).invoiceId, '12345');
  assert.match(details(validate({ country: 'BR', amount: 1, invoice_id: 'x'.repeat(129) }))[0]!, /^invoice_id: must be at most 128/);
});

test('payer document with check digits; phone, state and zip per country', () => {
  const d = details(validate({
    country: 'BR', amount: 10,
    payer: { document: '529.982.247-26', phone: '11999999999', email: 'nope', address: { state: 'XX', zip_code: '123' } },
  }));
  assert.ok(d.some((x) => x.startsWith('payer.document: ')), JSON.stringify(d));
  assert.ok(d.some((x) => x.startsWith('payer.phone: ')));
  assert.ok(d.some((x) => x.startsWith('payer.email: ')));
  assert.ok(d.some((x) => x.startsWith('payer.address.state: ')));
  assert.ok(d.some((x) => x.startsWith('payer.address.zip_code: ')));
  const v = ok(validate({ country: 'BR', amount: 10, payer: { ...BR_PAYER, phone: '+55 11 99999-9999', address: { state: 'São Paulo', zip_code: '01310-100' } } }));
  assert.equal(v.payer.document, '52998224725');
  assert.equal(v.payer.document_type, 'CPF');
  assert.equal(v.payer.phone, '+5511999999999');
  assert.equal(v.payer.address?.state, 'SP');
});

test('ONE_SHOT needs a method and every field it requires', () => {
  assert.equal(ok(validate({ country: 'BR', amount: 10, payment_method: 'IX', payer: BR_PAYER })).checkoutType, 'ONE_SHOT');
  const v = ok(validate({ country: 'BR', amount: 10, payment_method: 'ix', payer: { document: BR_PAYER.document } }));
  assert.equal(v.checkoutType, 'HOSTED');
  assert.deepEqual(v.missingPayerFields, ['payer.first_name', 'payer.last_name', 'payer.email']);
  // Cards need card details the request never carries.
  assert.equal(ok(validate({ country: 'BR', amount: 10, payment_method: 'VI', payer: BR_PAYER })).checkoutType, 'HOSTED');
  assert.match(details(validate({ country: 'BR', amount: 10, payment_method: 'ZZ' }))[0]!, /^payment_method: 'ZZ' is not offered in BR; offered: IX/);
});

test('rule 3: tolerated invalid phone/state/zip', () => {
  const co = { document: '1020304050', first_name: 'Juan', last_name: 'Pérez', email: 'j@example.com' };
  // Without the flag: an error.
  assert.match(details(validate({ country: 'CO', amount: 10, payment_method: 'PC', payer: { ...co, phone: '123' } }))[0]!, /^payer\.phone: /);
  // With it, and the method needs the phone: HOSTED so the customer corrects it.
  const a = ok(validate({ country: 'CO', amount: 10, payment_method: 'PC', request_payer_data_on_validation_failure: true, payer: { ...co, phone: '123' } }));
  assert.equal(a.checkoutType, 'HOSTED');
  assert.deepEqual(a.invalidPayerFields, ['payer.phone']);
  assert.equal(a.payer.phone, undefined);
  // The method does not need it: ignored, ONE_SHOT.
  const b = ok(validate({ country: 'BR', amount: 10, payment_method: 'IX', request_payer_data_on_validation_failure: true, payer: { ...BR_PAYER, phone: '123', address: { zip_code: 'abc' } } }));
  assert.equal(b.checkoutType, 'ONE_SHOT');
  assert.equal(b.payer.phone, undefined);
  // An invalid document is never tolerated.
  assert.ok(details(validate({ country: 'BR', amount: 10, request_payer_data_on_validation_failure: true, payer: { document: '123' } }))[0]!.startsWith('payer.document: '));
});

test('method minimum and maximum, in the local currency', () => {
  const d = details(validate({ country: 'BR', amount: '0.10', payment_method: 'IX' }));
  assert.match(d[0]!, /^amount: 0\.54 BRL is below the minimum of 1\.00 BRL for IX \(Pix\)$/);
  assert.match(details(validate({ country: 'BR', amount: '100000.01', currency: 'BRL', payment_method: 'IX' }))[0]!, /above the maximum of 100000\.00 BRL/);
});

test('URLs: https only in production, loopback http in staging; 2048 characters', () => {
  ok(validate({ country: 'BR', amount: 1, notification_url: 'http://localhost:3000/n' }));
  assert.match(details(validate({ country: 'BR', amount: 1, notification_url: 'http://localhost:3000/n' }, 'production'))[0]!, /^notification_url: must be an HTTPS URL/);
  assert.match(details(validate({ country: 'BR', amount: 1, logo: `https://x.com/${'a'.repeat(2040)}` }))[0]!, /^logo: must be at most 2048/);
});

test('client_ip v4 and v6; language; booleans as strings', () => {
  const v = ok(validate({ country: 'MX', amount: 1, client_ip: '2001:db8::1', language: 'PT', test: 'true' }));
  assert.equal(v.clientIp, '2001:db8::1');
  assert.equal(v.language, 'pt');
  assert.equal(v.test, true);
});

test('currency must be ISO 4217 with a known rate', () => {
  assert.match(details(validate({ country: 'BR', amount: 1, currency: 'ABC' }))[0]!, /^currency: 'ABC' is not an ISO 4217/);
  assert.match(details(validate({ country: 'BR', amount: 1, currency: 'EUR' }))[0]!, /^currency: no exchange rate/);
  assert.equal(ok(validate({ country: 'BR', amount: 1, currency: 'brl' })).currency, 'BRL');
});

test('a body that is not an object', () => {
  assert.deepEqual(details(validate([1, 2])), ['body: must be a JSON object']);
});
