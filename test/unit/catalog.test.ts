import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PAYMENT_TYPES, findMethod, methodsForCountry } from '../../src/domain/catalog.ts';
import { ACCEPTED_COUNTRIES, getCountry } from '../../src/domain/countries.ts';

const DECIMAL = /^\d+(\.\d{1,2})?$/;
const PAYER_FIELDS = new Set([
  'payer.document', 'payer.first_name', 'payer.last_name', 'payer.email', 'payer.phone',
  'payer.address.street', 'payer.address.city', 'payer.address.state', 'payer.address.zip_code',
]);
const STREAMLINE: Record<string, string> = {
  BANK_TRANSFER: '00', BANK_DEPOSIT: '01', VOUCHER: '02', CREDIT_CARD: '03', DEBIT_CARD: '03',
};

test('every accepted country has at least two methods; the big markets more', () => {
  for (const c of ACCEPTED_COUNTRIES) assert.ok(methodsForCountry(c.code).length >= 2, c.code);
  for (const code of ['BR', 'MX', 'CO', 'PE', 'CL', 'AR']) assert.ok(methodsForCountry(code).length >= 5, code);
  assert.deepEqual(methodsForCountry('US'), []);
});

test('every method entry is well formed', () => {
  for (const c of ACCEPTED_COUNTRIES) {
    const codes = new Set<string>();
    for (const m of methodsForCountry(c.code)) {
      const where = `${c.code}/${m.code}`;
      assert.match(m.code, /^[0-9A-Z]{1,3}$/, where);
      assert.ok(!codes.has(m.code), `duplicate ${where}`);
      codes.add(m.code);
      assert.equal(m.country, c.code);
      assert.equal(m.currency, getCountry(c.code)!.currency, where);
      assert.ok((PAYMENT_TYPES as readonly string[]).includes(m.type), where);
      assert.match(m.minAmount, DECIMAL, where);
      assert.match(m.maxAmount, DECIMAL, where);
      assert.ok(Number(m.minAmount) > 0 && Number(m.minAmount) < Number(m.maxAmount), where);
      assert.ok(m.requiredPayerFields.includes('payer.document'), where);
      for (const f of m.requiredPayerFields) assert.ok(PAYER_FIELDS.has(f), `${where} ${f}`);
      if (STREAMLINE[m.type]) assert.equal(m.streamlinePaymentType, STREAMLINE[m.type], where);
      assert.ok(Number.isInteger(m.expiryMinutes) && m.expiryMinutes > 0, where);
      assert.equal(m.logo, `/logos/${c.code.toLowerCase()}/${m.code.toLowerCase()}.svg`);
      if (m.type === 'CRYPTO') assert.equal(m.kind, 'crypto', where);
      if (m.type === 'CREDIT_CARD' || m.type === 'DEBIT_CARD') assert.equal(m.kind, 'card', where);
    }
  }
});

test('spec-named codes exist with the right shape', () => {
  const pix = findMethod('BR', 'IX')!;
  assert.equal(pix.kind, 'pix');
  assert.equal(pix.type, 'BANK_TRANSFER');
  assert.equal(pix.expiryMinutes, 60);
  assert.deepEqual(pix.requiredPayerFields, ['payer.document', 'payer.first_name', 'payer.last_name', 'payer.email']);
  const boleto = findMethod('BR', 'BL')!;
  assert.equal(boleto.type, 'VOUCHER');
  assert.equal(boleto.streamlinePaymentType, '02');
  assert.ok(boleto.requiredPayerFields.includes('payer.address.zip_code'));
  assert.equal(findMethod('MX', 'SE')?.expiryMinutes, 1440);
  assert.equal(findMethod('MX', 'OX')?.expiryMinutes, 3 * 24 * 60);
  assert.ok(findMethod('CO', 'PC')!.requiredPayerFields.includes('payer.phone'));
  assert.ok(findMethod('CO', 'EY')!.requiredPayerFields.includes('payer.phone'));
  assert.equal(findMethod('CO', 'PC')!.currency, 'COP');
  for (const [country, code] of [['PE', 'BC'], ['PE', 'IB'], ['PE', 'PF'], ['CL', 'WP'], ['CL', 'SV'],
    ['AR', 'RP'], ['AR', 'PF'], ['UY', 'AB'], ['UY', 'RE'], ['BR', 'I'], ['BR', 'B'], ['BR', 'CA']]) {
    assert.ok(findMethod(country!, code!), `${country}/${code}`);
  }
});

test('crypto methods exist in BR and MX', () => {
  for (const country of ['BR', 'MX']) {
    const crypto = methodsForCountry(country).filter((m) => m.type === 'CRYPTO');
    assert.equal(crypto.length, 1, country);
    assert.equal(crypto[0]!.code, 'CR');
  }
});

test('findMethod is case-insensitive and scoped to the country', () => {
  assert.equal(findMethod('br', 'ix')?.code, 'IX');
  assert.equal(findMethod('MX', 'IX'), undefined);
  assert.equal(findMethod('BR', 'ZZ'), undefined);
});

test('ecuador and panama collect in USD', () => {
  for (const m of [...methodsForCountry('EC'), ...methodsForCountry('PA')]) assert.equal(m.currency, 'USD');
});
