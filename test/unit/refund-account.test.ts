// The one check of a refund's bank account against the deposit's country (refunds service).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refundAccountErrors } from '../../src/domain/refund-rules.ts';

const ITAU = { bank_code: '341', branch: '2545', account_number: '02366-1', account_type: 'CHECKING' };

test('a valid Brazilian account has no errors', () => {
  assert.deepEqual(refundAccountErrors('BR', false, ITAU), []);
});

test('a wrong check digit names account_number, as the v3 body names it', () => {
  assert.deepEqual(refundAccountErrors('BR', false, { ...ITAU, account_number: '02366-2' }), [
    { field: 'account_number', reason: 'check digit does not match the Itaú account' },
  ]);
});

test('a card deposit: the account is not checked, the document still is', () => {
  assert.deepEqual(refundAccountErrors('BR', true, { ...ITAU, account_number: '02366-2' }), []);
  const errs = refundAccountErrors('BR', true, { document: '123' });
  assert.deepEqual(errs.map((e) => e.field), ['document']);
});

test('document and account errors together, document first', () => {
  const errs = refundAccountErrors('BR', false, { ...ITAU, account_number: '02366-2', document: '123' });
  assert.deepEqual(errs.map((e) => e.field), ['document', 'account_number']);
});

test('no account number given: nothing to check against the country', () => {
  assert.deepEqual(refundAccountErrors('BR', false, { bank_code: '341' }), []);
});
