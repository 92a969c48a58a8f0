import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isValidCbu, normalizeAccountType, validateBankAccount } from '../../src/domain/bank-accounts.ts';

const CBU = '2850590940090418135201'; // widely published valid CBU (Banco Macro)

test('normalizeAccountType maps both spellings', () => {
  assert.equal(normalizeAccountType('C'), 'CHECKING');
  assert.equal(normalizeAccountType('S'), 'SAVING');
  assert.equal(normalizeAccountType('V'), 'VISTA');
  assert.equal(normalizeAccountType('O'), 'CHECKING_SET');
  assert.equal(normalizeAccountType('P'), 'SAVING_SET');
  assert.equal(normalizeAccountType('s'), 'SAVING');
  for (const t of ['SAVING', 'CHECKING', 'VISTA', 'MASTER', 'SAVING_SET', 'CHECKING_SET', 'DEFAULT']) {
    assert.equal(normalizeAccountType(t), t);
  }
  assert.equal(normalizeAccountType('checking'), 'CHECKING');
  assert.equal(normalizeAccountType('X'), null);
  assert.equal(normalizeAccountType('SAVINGS'), null);
  assert.equal(normalizeAccountType(''), null);
});

test('CBU check digits', () => {
  assert.equal(isValidCbu(CBU), true);
  for (let i = 0; i < 22; i++) {
    const bad = CBU.slice(0, i) + ((Number(CBU[i]) + 1) % 10) + CBU.slice(i + 1);
    assert.equal(isValidCbu(bad), false, bad);
  }
  assert.equal(isValidCbu(CBU.slice(1)), false);
});

test('Argentina', () => {
  assert.deepEqual(validateBankAccount('AR', { account: CBU }), { ok: true });
  assert.deepEqual(validateBankAccount('ar', { account: '28505909 40090418135201', bankCode: '285' }), { ok: true });
  assert.deepEqual(validateBankAccount('AR', { account: CBU, bankCode: '00285' }), { ok: true });
  assert.deepEqual(validateBankAccount('AR', { account: CBU, bankCode: '007' }), {
    ok: false, field: 'bank_code', reason: 'does not match the bank in the account number',
  });
  assert.deepEqual(validateBankAccount('AR', { account: CBU.replace(/1$/, '2') }), {
    ok: false, field: 'account', reason: 'CBU check digits do not match',
  });
  assert.deepEqual(validateBankAccount('AR', { account: '12345' }), {
    ok: false, field: 'account', reason: 'must be a 22-digit CBU or CVU',
  });
});

test('Mexico', () => {
  assert.deepEqual(validateBankAccount('MX', { account: '032180000118359719' }), { ok: true });
  assert.deepEqual(validateBankAccount('MX', { account: '032180000118359719', bankCode: '40032' }), { ok: true });
  assert.deepEqual(validateBankAccount('MX', { account: '032180000118359719', bankCode: '40072' }).ok, false);
  assert.deepEqual(validateBankAccount('MX', { account: '032180000118359718' }), {
    ok: false, field: 'account', reason: 'CLABE check digit does not match',
  });
  assert.equal(validateBankAccount('MX', { account: '4111111111111111' }).ok, false);
});

test('Brazil agency and account shapes', () => {
  assert.deepEqual(validateBankAccount('BR', { account: '12345-6', branch: '1234', accountType: 'C' }), { ok: true });
  assert.deepEqual(validateBankAccount('BR', { account: '123456789-X', branch: '0001-9' }), { ok: true });
  assert.deepEqual(validateBankAccount('BR', { account: '0013000012345' }), { ok: true }); // Caixa with operation code
  assert.deepEqual(validateBankAccount('BR', { account: '12', branch: '1234' }).ok, false);
  assert.deepEqual(validateBankAccount('BR', { account: '12345678901234' }).ok, false);
  assert.deepEqual(validateBankAccount('BR', { account: '12a45' }).ok, false);
  assert.deepEqual(validateBankAccount('BR', { account: '12345-6', branch: '123456' }), {
    ok: false, field: 'branch', reason: 'must be up to 5 digits, optionally followed by -check digit',
  });
});

test('Peru, Colombia and the generic fallback', () => {
  assert.deepEqual(validateBankAccount('PE', { account: '00219300123456789012' }), { ok: true });
  assert.deepEqual(validateBankAccount('PE', { account: '1932345678901' }), { ok: true });
  assert.equal(validateBankAccount('PE', { account: '123456789012345678901' }).ok, false);
  assert.deepEqual(validateBankAccount('CO', { account: '123-456789-01' }), { ok: true });
  assert.deepEqual(validateBankAccount('CO', { account: '123' }), { ok: false, field: 'account', reason: 'must be 4 to 20 digits' });
  assert.equal(validateBankAccount('CL', { account: '1'.repeat(21) }).ok, false);
  assert.equal(validateBankAccount('CL', { account: '12345678', branch: 'abc' }).ok, false);
});

test('common checks: required account and known account type', () => {
  assert.deepEqual(validateBankAccount('BR', { account: '  ' }), { ok: false, field: 'account', reason: 'is required' });
  const r = validateBankAccount('MX', { account: '032180000118359719', accountType: 'Z' });
  assert.equal(r.ok, false);
  assert.equal((r as { field: string }).field, 'account_type');
  assert.deepEqual(validateBankAccount('MX', { account: '032180000118359719', accountType: 'SAVING_SET' }), { ok: true });
});
