import { test } from 'node:test';
import assert from 'node:assert/strict';
import { banksForCountry, findBank, namesBank } from '../../src/domain/banks.ts';
import { accountEmbedsBank } from '../../src/domain/bank-accounts.ts';
import { ACCEPTED_COUNTRIES } from '../../src/domain/countries.ts';

test('every accepted country has at least 3 banks, unique codes, sorted by code', () => {
  for (const c of ACCEPTED_COUNTRIES) {
    const banks = banksForCountry(c.code);
    assert.ok(banks.length >= 3, c.code);
    const codes = banks.map((b) => b.code);
    assert.equal(new Set(codes).size, codes.length, `${c.code} duplicate codes`);
    assert.deepEqual(codes, [...codes].sort((a, b) => a - b), `${c.code} not sorted`);
    for (const b of banks) {
      assert.ok(Number.isSafeInteger(b.code) && b.code > 0, `${c.code} ${b.code}`);
      assert.ok(b.name.length > 0 && b.name === b.name.trim(), `${c.code} ${b.code}`);
    }
  }
  assert.deepEqual(banksForCountry('US'), []);
});

test('Brazil uses COMPE codes', () => {
  const expected: Record<number, RegExp> = {
    1: /Banco do Brasil/, 33: /Santander/, 104: /Caixa/, 237: /Bradesco/, 341: /Itaú/,
    260: /Nu/i, 77: /Inter/, 336: /C6/, 756: /Sicoob/, 748: /Sicredi/, 208: /BTG/, 422: /Safra/,
    41: /Rio Grande do Sul/, 70: /BRB/, 290: /PagSeguro/i, 323: /Mercado Pago/, 380: /PicPay/i, 623: /Pan/,
  };
  for (const [code, name] of Object.entries(expected)) assert.match(findBank('BR', code)!.name, name, code);
});

test('Mexico uses the CLABE institution codes, Argentina the BCRA ones', () => {
  assert.match(findBank('MX', 2)!.name, /Banamex/i);
  assert.match(findBank('MX', 12)!.name, /BBVA/);
  assert.match(findBank('MX', 72)!.name, /Banorte/i);
  assert.match(findBank('MX', 646)!.name, /STP/);
  assert.match(findBank('AR', 7)!.name, /Galicia/);
  assert.match(findBank('AR', 11)!.name, /Nación/);
  assert.match(findBank('AR', 285)!.name, /Macro/);
  assert.match(findBank('AR', 143)!.name, /Brubank/);
});

test('findBank accepts zero-padded strings and rejects junk', () => {
  assert.match(findBank('BR', '001')!.name, /Banco do Brasil/);
  assert.match(findBank('br', ' 0341 ')!.name, /Itaú/);
  assert.equal(findBank('BR', '34A'), undefined);
  assert.equal(findBank('BR', ''), undefined);
  assert.equal(findBank('BR', 999), undefined);
  assert.equal(findBank('MX', 341), undefined);
});

test('registries: the full participant lists, with ISPB for Brazil; SPEI 5-digit keys resolve', () => {
  assert.ok(banksForCountry('BR').length > 400, 'every COMPE participant');
  assert.ok(banksForCountry('BR').every((b) => /^\d{8}$/.test(b.ispb ?? '')));
  assert.equal(findBank('BR', 341)!.ispb, '60701190');
  assert.ok(banksForCountry('MX').length > 100, 'every SPEI participant');
  assert.ok(banksForCountry('AR').length > 50);
  assert.equal(findBank('MX', '40012'), findBank('MX', 12));
  assert.equal(findBank('MX', '90646'), findBank('MX', 646));
  assert.equal(findBank('MX', '41012'), undefined);
  assert.equal(findBank('BR', '40012'), undefined);
});

test('namesBank: x_bank names a bank by its code or by the distinctive words of its registry name', () => {
  const itau = findBank('BR', '341')!;
  for (const named of ['341', '0341', 'Itaú', 'ITAU', 'itaú unibanco', 'Itaú Unibanco S.A.', ' Banco Itaú ']) assert.equal(namesBank('BR', itau, named), true, named);
  for (const named of ['', 'Banco', 'S.A.', 'Bradesco', '237', 'Itaú Bradesco', 'ItauBank', '34', 'x341']) assert.equal(namesBank('BR', itau, named), false, named);
  assert.equal(namesBank('BR', findBank('BR', '1')!, 'Banco do Brasil'), true);
  assert.equal(namesBank('BR', findBank('BR', '260')!, 'Itaú'), false);
});

test('accountEmbedsBank: CBU (not CVU), CLABE and CCI carry their bank', () => {
  assert.equal(accountEmbedsBank('AR', '2850590940090418135201'), true);
  assert.equal(accountEmbedsBank('AR', '0000003100010000000001'), false);
  assert.equal(accountEmbedsBank('MX', '012180001234567899'), true);
  assert.equal(accountEmbedsBank('PE', '00219300123456789012'), true);
  assert.equal(accountEmbedsBank('PE', '1234567890'), false);
  assert.equal(accountEmbedsBank('BR', '12345-4'), false);
});
