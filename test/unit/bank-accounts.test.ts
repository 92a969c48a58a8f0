import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountTypesFor, isValidCbu, isValidCci, normalizeAccountType, validateBankAccount, type BankAccountInput } from '../../src/domain/bank-accounts.ts';

// BCRA's own example CBU (Banco Macro, 285).
const CBU = '2850590940090418135201';

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

/** Every single-digit change of a valid number must be caught by its check digits. */
function everyDigitChangeFails(valid: string, isValid: (s: string) => boolean) {
  for (let i = 0; i < valid.length; i++) {
    const bad = valid.slice(0, i) + ((Number(valid[i]) + 1) % 10) + valid.slice(i + 1);
    assert.equal(isValid(bad), false, bad);
  }
}

test('CBU check digits (both blocks)', () => {
  assert.equal(isValidCbu(CBU), true);
  everyDigitChangeFails(CBU, isValidCbu);
  assert.equal(isValidCbu(CBU.slice(1)), false);
});

test('CCI check digits (both), BBVA only the account one', () => {
  for (const cci of ['00219300123456789013', '00310098765432100053']) {
    assert.equal(isValidCci(cci), true, cci);
    everyDigitChangeFails(cci.slice(0, 18), (s) => isValidCci(s + cci.slice(18)));
    assert.equal(isValidCci(cci.slice(0, 18) + cci[19] + cci[18]) && cci[18] !== cci[19], false);
  }
  assert.equal(isValidCci('01105700020012345672'), true, 'BBVA: first digit not checked');
  assert.equal(isValidCci('01105700020012345603'), false, 'BBVA: second digit still checked');
});

type Row = [country: string, input: BankAccountInput, expected: 'ok' | `${'format' | 'check_digit' | 'unknown_bank'}:${string}`];

// [country, input, 'ok' or '<check>:<field>'] — published examples where banks publish them
// (Banxico's CLABE, BCRA's CBU, Itaú's DAC and Bradesco's manual examples, Banco do Brasil's
// agency 0001-9), the rest computed with the published algorithm and one digit changed.
const ROWS: Row[] = [
  // Argentina: CBU / CVU, entity must be a BCRA entity, bank_code must match it.
  ['AR', { account: CBU }, 'ok'],
  ['AR', { account: '28505909 40090418135201', bankCode: '285' }, 'ok'],
  ['AR', { account: CBU, bankCode: '00285' }, 'ok'],
  ['AR', { account: CBU, bankCode: '007' }, 'format:bank_code'],
  ['AR', { account: CBU, bankCode: '998' }, 'unknown_bank:bank_code'],
  ['AR', { account: CBU.replace(/1$/, '2') }, 'check_digit:account'],
  ['AR', { account: '12345' }, 'format:account'],
  ['AR', { account: '0000003110000000000014' }, 'ok'], // a CVU: wallet id, no bank
  ['AR', { account: '9990590940090418135201'.replace(/^999059094/, '999059099') }, 'check_digit:account'],
  // Mexico: CLABE, prefix a SPEI participant, bank_code (3-digit or 5-digit SPEI key) must match.
  ['MX', { account: '032180000118359719' }, 'ok'],
  ['MX', { account: '032180000118359719', bankCode: '40032' }, 'ok'],
  ['MX', { account: '012180001234567899', bankCode: '012' }, 'ok'],
  ['MX', { account: '032180000118359719', bankCode: '40072' }, 'format:bank_code'],
  ['MX', { account: '032180000118359718' }, 'check_digit:account'],
  ['MX', { account: '998180000118359714' }, 'unknown_bank:account'],
  ['MX', { account: '4111111111111111' }, 'format:account'],
  // Peru: CCI with check digits and a CCE bank, or a bank's own account number.
  ['PE', { account: '00219300123456789013' }, 'ok'],
  ['PE', { account: '002-193-001234567890-13', bankCode: '2' }, 'ok'],
  ['PE', { account: '00219300123456789012' }, 'check_digit:account'],
  ['PE', { account: '99919300123456789013' }, 'check_digit:account'],
  ['PE', { account: '1932345678901' }, 'ok'],
  ['PE', { account: '123456789012345678901' }, 'format:account'],
  ['PE', { account: '00219300123456789013', bankCode: '3' }, 'format:bank_code'],
  // Brazil: Banco do Brasil (agency and account mod 11, X for 10).
  ['BR', { bankCode: '001', branch: '0001-9', account: '12345-5' }, 'ok'],
  ['BR', { bankCode: '1', branch: '1234-3', account: '87654-2' }, 'ok'],
  ['BR', { bankCode: '001', account: '00040599-X' }, 'ok'],
  ['BR', { bankCode: '001', account: '00040599-9' }, 'check_digit:account'],
  ['BR', { bankCode: '001', branch: '0001-8', account: '12345-5' }, 'check_digit:branch'],
  ['BR', { bankCode: '001', account: '12345-6' }, 'check_digit:account'],
  ['BR', { bankCode: '001', account: '123456789-0' }, 'format:account'],
  // Itaú (DAC over agency and account, mod 10).
  ['BR', { bankCode: '341', branch: '2545', account: '02366-1' }, 'ok'],
  ['BR', { bankCode: '341', branch: '0001', account: '123454' }, 'ok'],
  ['BR', { bankCode: '341', branch: '0001', account: '12345-6' }, 'check_digit:account'],
  ['BR', { bankCode: '341', branch: '2545', account: '02366-2' }, 'check_digit:account'],
  ['BR', { bankCode: '341', branch: '0001', account: '1234567-0' }, 'format:account'],
  // Bradesco (agency and account mod 11, P for 10).
  ['BR', { bankCode: '237', branch: '1425-7', account: '0238069-2' }, 'ok'],
  ['BR', { bankCode: '237', branch: '0001', account: '1234567-4' }, 'ok'],
  ['BR', { bankCode: '237', branch: '1425-6', account: '0238069-2' }, 'check_digit:branch'],
  ['BR', { bankCode: '237', account: '0238069-3' }, 'check_digit:account'],
  // Santander (one digit over agency and account).
  ['BR', { bankCode: '033', branch: '0001', account: '12345678-9' }, 'ok'],
  ['BR', { bankCode: '33', branch: '0001', account: '12345678-8' }, 'check_digit:account'],
  ['BR', { bankCode: '33', branch: '0002', account: '12345678-9' }, 'check_digit:account'],
  // Caixa (operation + number, digit over agency, operation and number).
  ['BR', { bankCode: '104', branch: '0001', account: '001 00012345-9' }, 'ok'],
  ['BR', { bankCode: '104', branch: '1234', account: '01300098765-1' }, 'ok'],
  ['BR', { bankCode: '104', branch: '1234', account: '01300098765-2' }, 'check_digit:account'],
  ['BR', { bankCode: '104', branch: '1234', account: '1288000123456-7' }, 'format:account'],
  // Other Brazilian banks: shape only; an unknown bank code is refused.
  ['BR', { bankCode: '260', branch: '0001', account: '1234567-8' }, 'ok'],
  ['BR', { account: '12345-6', branch: '1234', accountType: 'C' }, 'ok'],
  ['BR', { account: '123456789-X', branch: '0001-9' }, 'ok'],
  ['BR', { account: '12', branch: '1234' }, 'format:account'],
  ['BR', { account: '12345678901234' }, 'format:account'],
  ['BR', { account: '12a45' }, 'format:account'],
  ['BR', { account: '12345-6', branch: '123456' }, 'format:branch'],
  ['BR', { account: '12345-6', bankCode: '999' }, 'unknown_bank:bank_code'],
  // Lengths and types: CO, CL, UY, EC and the other countries.
  ['CO', { account: '123-456789-01', bankCode: '1007', accountType: 'SAVING' }, 'ok'],
  ['CO', { account: '1234' }, 'format:account'],
  ['CO', { account: '12345678', accountType: 'VISTA' }, 'format:account_type'],
  ['CO', { account: '12345678', bankCode: '7' }, 'unknown_bank:bank_code'],
  ['CL', { account: '12345678', accountType: 'VISTA', bankCode: '12' }, 'ok'],
  ['CL', { account: '1'.repeat(21) }, 'format:account'],
  ['CL', { account: '12345678', branch: 'abc' }, 'format:branch'],
  ['UY', { account: '00155012345678', bankCode: '1' }, 'ok'],
  ['UY', { account: '1'.repeat(17) }, 'format:account'],
  ['EC', { account: '2200123456', bankCode: '10', accountType: 'S' }, 'ok'],
  ['EC', { account: '2200123456', accountType: 'MASTER' }, 'format:account_type'],
  ['EC', { account: '1234' }, 'format:account'],
  ['CN', { account: '6222021234567890123' }, 'ok'],
  ['CN', { account: '62220212345678901234567' }, 'format:account'],
  // Common: account required, account type known.
  ['BR', { account: '  ' }, 'format:account'],
  ['MX', { account: '032180000118359719', accountType: 'Z' }, 'format:account_type'],
  ['MX', { account: '032180000118359719', accountType: 'SAVING_SET' }, 'ok'],
];

test('validateBankAccount: published and computed examples per country', () => {
  for (const [country, input, expected] of ROWS) {
    const r = validateBankAccount(country, input);
    const label = `${country} ${JSON.stringify(input)}`;
    if (expected === 'ok') {
      assert.deepEqual(r, { ok: true }, label);
    } else {
      assert.equal(r.ok, false, label);
      if (r.ok) continue;
      assert.equal(`${r.check}:${r.field}`, expected, `${label}: ${r.reason}`);
      assert.ok(r.reason.length > 5, label);
    }
  }
});

test('failures carry field, reason and check for the callers', () => {
  assert.deepEqual(validateBankAccount('MX', { account: '032180000118359718' }), {
    ok: false, field: 'account', reason: 'CLABE check digit does not match', check: 'check_digit',
  });
  assert.deepEqual(validateBankAccount('BR', { account: '  ' }), { ok: false, field: 'account', reason: 'is required', check: 'format' });
  assert.deepEqual(accountTypesFor('co'), ['SAVING', 'CHECKING', 'DEFAULT']);
  assert.equal(accountTypesFor('BR').length, 7);
});
