// Card rules of the staging card step: Luhn, brand by prefix, expiry through the end of its
// month, CVC length by brand, the masked form that is all caja keeps, and the test numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cardBrand, cardDetail, checkCard, luhnValid, maskCard, stagingOutcome, TEST_CARDS } from '../../src/domain/cards.ts';

const NOW = new Date('2026-11-23T12:00:00Z');
const ok = { number: '4111 1111 1111 1111', expiry: '12/30', cvc: '123', holder: ' Ana   Silva ' };

test('Luhn and brands; every documented test number is valid and of its brand', () => {
  assert.ok(luhnValid('4111111111111111'));
  assert.ok(!luhnValid('4111111111111112'));
  assert.ok(!luhnValid('4111-1111'));
  assert.equal(cardBrand('4000000000000002'), 'VISA');
  assert.equal(cardBrand('5105105105105100'), 'MASTERCARD');
  assert.equal(cardBrand('2221000000000009'), 'MASTERCARD', '2-series');
  assert.equal(cardBrand('2721000000000004'), 'OTHER');
  assert.equal(cardBrand('378282246310005'), 'AMEX');
  for (const [number, { brand }] of Object.entries(TEST_CARDS)) {
    assert.ok(luhnValid(number), number);
    assert.equal(cardBrand(number), brand, number);
  }
  assert.equal(stagingOutcome('4000000000000002'), 'decline');
  assert.equal(stagingOutcome('4000000000003220'), 'challenge');
  assert.equal(stagingOutcome('4012888888881881'), 'approve', 'any other valid number');
});

test('checkCard: normalised holder and expiry, masked detail without the number or the CVC', () => {
  const r = checkCard(ok, 'VI', NOW);
  assert.ok(r.ok);
  assert.deepEqual(cardDetail(r.card), { card_holder: 'Ana Silva', masked_card: '411111******1111', brand: 'VISA', expiration: '12/30' });
  assert.ok(!JSON.stringify(cardDetail(r.card)).includes('4111111111111111'));
  assert.equal(maskCard('378282246310005'), '378282*****0005');
  const long = checkCard({ ...ok, expiry: '3/2031' }, 'WP', NOW);
  assert.ok(long.ok && long.card.expiration === '03/31');
});

test('checkCard: each refused field says why', () => {
  const errors = (input: Partial<typeof ok>, method = 'VI') => {
    const r = checkCard({ ...ok, ...input }, method, NOW);
    return r.ok ? {} : r.errors;
  };
  assert.deepEqual(errors({ number: '', expiry: '', cvc: '', holder: '' }), { number: 'required', expiry: 'required', cvc: 'required', holder: 'required' });
  assert.deepEqual(errors({ number: '4111 1111 1111 1112' }), { number: 'number_invalid' });
  assert.deepEqual(errors({ number: '5555555555554444' }), { number: 'brand_mismatch' });
  assert.deepEqual(errors({ number: '5555555555554444' }, 'WP'), {}, 'Webpay takes any brand');
  assert.deepEqual(errors({ expiry: '13/30' }), { expiry: 'expiry_invalid' });
  assert.deepEqual(errors({ expiry: '10/26' }), { expiry: 'expired' });
  assert.deepEqual(errors({ expiry: '11/26' }), {}, 'valid through the end of its month');
  assert.deepEqual(errors({ cvc: '12a' }), { cvc: 'cvc_invalid' });
  assert.deepEqual(errors({ number: '378282246310005', cvc: '123' }, 'WP'), { cvc: 'cvc_invalid' }, 'Amex has 4');
  assert.deepEqual(errors({ holder: 'Ana <script>' }), { holder: 'holder_invalid' });
});
