import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  asciiFold, buildPixBrCode, classifyPixKey, crc16CcittFalse, isValidCnpj, isValidCpf,
  parsePixBrCode, splitTlv, verifyPixCrc,
} from '../../src/domain/pix.ts';

// Sample static BR Code from the Banco Central's "Manual de Padrões para Iniciação do Pix".
const BCB_SAMPLE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

test('CRC-16/CCITT-FALSE matches the standard check value and the BCB sample', () => {
  assert.equal(crc16CcittFalse('123456789'), '29B1');
  assert.equal(verifyPixCrc(BCB_SAMPLE), true);
  assert.equal(verifyPixCrc(BCB_SAMPLE.replace('Fulano', 'Fulana')), false);
  assert.equal(verifyPixCrc(BCB_SAMPLE.slice(0, -4) + '1d3d'), true); // hex case does not matter
  assert.equal(verifyPixCrc(BCB_SAMPLE.slice(0, -4) + '1D3E'), false);
  assert.equal(verifyPixCrc('nonsense'), false);
  // The table-driven CRC against the bit-by-bit definition, on every byte value in many orders.
  const bitwise = (bytes: Buffer) => {
    let crc = 0xffff;
    for (const byte of bytes) {
      crc ^= byte << 8;
      for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
    return crc.toString(16).toUpperCase().padStart(4, '0');
  };
  for (let n = 0; n < 200; n++) {
    const text = String.fromCharCode(...Array.from({ length: 1 + (n % 60) }, () => Math.floor(Math.random() * 0x800)));
    assert.equal(crc16CcittFalse(text), bitwise(Buffer.from(text, 'utf8')), JSON.stringify(text));
  }
});

test('the builder reproduces the BCB sample byte for byte', () => {
  const code = buildPixBrCode({
    key: '123e4567-e12b-12d1-a456-426655440000',
    merchantName: 'Fulano de Tal',
    merchantCity: 'BRASILIA',
  });
  assert.equal(code, BCB_SAMPLE);
});

test('parsePixBrCode reads the BCB sample', () => {
  const r = parsePixBrCode(BCB_SAMPLE);
  assert.ok(r.ok);
  assert.equal(r.value.key, '123e4567-e12b-12d1-a456-426655440000');
  assert.equal(r.value.merchantName, 'Fulano de Tal');
  assert.equal(r.value.merchantCity, 'BRASILIA');
  assert.equal(r.value.currency, '986');
  assert.equal(r.value.txid, '***');
  assert.equal(r.value.amount, undefined);
  assert.equal(r.value.crc, '1D3D');
  assert.deepEqual(r.value.fields.map((f) => f.id), ['00', '26', '52', '53', '58', '59', '60', '62', '63']);
});

test('build and parse round trip with amount, txid, description and folding', () => {
  const code = buildPixBrCode({
    key: 'Pagamentos@Exemplo.com.br',
    merchantName: 'Padaria São João da Conceição Ltda',
    merchantCity: 'São José dos Campos',
    amount: '1234.5',
    txid: 'DEP000123456789',
    description: 'Depósito nº 42',
  });
  assert.ok(/^[\x20-\x7e]+$/.test(code), 'payload is plain ASCII');
  assert.equal(verifyPixCrc(code), true);
  assert.ok(code.includes('54071234.50'));
  assert.ok(code.includes('5802BR'));
  assert.ok(code.includes('52040000'));
  assert.ok(code.includes('5303986'));
  const r = parsePixBrCode(code);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.value.key, 'pagamentos@exemplo.com.br');
  assert.equal(r.value.amount, '1234.50');
  assert.equal(r.value.txid, 'DEP000123456789');
  assert.equal(r.value.description, 'Deposito n 42');
  assert.equal(r.value.merchantName, 'Padaria Sao Joao da Conce'); // 25 characters
  assert.equal(r.value.merchantCity, 'Sao Jose dos Ca'); // 15 characters
});

test('TLV lengths are consistent in a built code', () => {
  const code = buildPixBrCode({ key: '+5511987654321', merchantName: 'Loja', merchantCity: 'Rio', amount: '0.01', txid: 'A1' });
  const fields = splitTlv(code);
  const account = splitTlv(fields.find((f) => f.id === '26')!.value);
  assert.deepEqual(account, [
    { id: '00', value: 'br.gov.bcb.pix' },
    { id: '01', value: '+5511987654321' },
  ]);
  assert.deepEqual(splitTlv(fields.find((f) => f.id === '62')!.value), [{ id: '05', value: 'A1' }]);
  assert.equal(fields.at(-1)!.id, '63');
});

test('a long description is cut to keep field 26 within 99 characters', () => {
  const code = buildPixBrCode({
    key: 'a'.repeat(60) + '@example.com',
    merchantName: 'X',
    merchantCity: 'Y',
    description: 'z'.repeat(200),
  });
  const r = parsePixBrCode(code);
  assert.ok(r.ok);
  const account = r.value.fields.find((f) => f.id === '26')!;
  assert.ok(account.value.length <= 99);
  assert.equal(account.value.length, 99);
});

test('builder rejects bad input', () => {
  const base = { key: '+5511987654321', merchantName: 'Loja', merchantCity: 'Rio' };
  assert.throws(() => buildPixBrCode({ ...base, key: 'not a key' }), /invalid Pix key/);
  assert.throws(() => buildPixBrCode({ ...base, amount: '1.234' }), /amount/);
  assert.throws(() => buildPixBrCode({ ...base, amount: '0' }), /amount/);
  assert.throws(() => buildPixBrCode({ ...base, amount: '12345678901.00' }), /amount/);
  assert.throws(() => buildPixBrCode({ ...base, txid: 'has-dash' }), /txid/);
  assert.throws(() => buildPixBrCode({ ...base, txid: 'A'.repeat(26) }), /txid/);
  assert.throws(() => buildPixBrCode({ ...base, merchantName: '€ ™' }), /name/);
});

test('each payee gets its own fields, however many codes were built for another before', () => {
  // The builder keeps what it worked out per payee (key, name, city, description).
  const payees = [
    { key: '11222333000181', merchantName: 'Caja Pagamentos Ltda', merchantCity: 'Sao Paulo' },
    { key: '11222333000181', merchantName: 'Caja Pagamentos Ltda', merchantCity: 'Recife' },
    { key: '11222333000181', merchantName: 'Outra Loja', merchantCity: 'Sao Paulo' },
    { key: '+5511987654321', merchantName: 'Caja Pagamentos Ltda', merchantCity: 'Sao Paulo' },
    { key: '11222333000181', merchantName: 'Caja Pagamentos Ltda', merchantCity: 'Sao Paulo', description: 'pedido 1' },
  ];
  for (let round = 0; round < 2; round++) {
    for (const [i, p] of payees.entries()) {
      const r = parsePixBrCode(buildPixBrCode({ ...p, amount: '10.50', txid: `CAJA${i}` }));
      assert.ok(r.ok);
      const field = (id: string) => r.value.fields.find((f) => f.id === id)?.value;
      assert.equal(field('59'), p.merchantName);
      assert.equal(field('60'), p.merchantCity);
      assert.ok(field('26')!.includes(p.key));
      assert.equal(field('26')!.includes('pedido 1'), p.description !== undefined);
    }
    // A refused key is refused every time, not remembered.
    assert.throws(() => buildPixBrCode({ key: 'not a key', merchantName: 'Loja', merchantCity: 'Rio' }), /invalid Pix key/);
  }
});

test('parser rejects damaged codes', () => {
  assert.equal(parsePixBrCode(BCB_SAMPLE.slice(0, -6)).ok, false);
  assert.equal(parsePixBrCode(BCB_SAMPLE.replace('BRASILIA', 'BRASILIO')).ok, false);
  assert.equal(parsePixBrCode('0002016304XXXX').ok, false);
  assert.equal(parsePixBrCode('').ok, false);
});

test('asciiFold strips accents and truncates', () => {
  assert.equal(asciiFold('  Açaí   & Cia  ', 25), 'Acai & Cia');
  assert.equal(asciiFold('Ñandú €uro', 25), 'Nandu uro');
  assert.equal(asciiFold('abcdef', 3), 'abc');
});

test('CPF and CNPJ check digits', () => {
  assert.equal(isValidCpf('52998224725'), true);
  assert.equal(isValidCpf('52998224724'), false);
  assert.equal(isValidCpf('11111111111'), false);
  assert.equal(isValidCnpj('11222333000181'), true);
  assert.equal(isValidCnpj('11222333000182'), false);
  assert.equal(isValidCnpj('00000000000000'), false);
  assert.equal(isValidCnpj('12ABC34501DE35'), true); // Receita Federal's alphanumeric example
  assert.equal(isValidCnpj('12ABC34501DE36'), false);
});

test('classifyPixKey recognises and normalises each key type', () => {
  assert.deepEqual(classifyPixKey('529.982.247-25'), { ok: true, type: 'CPF', normalized: '52998224725' });
  assert.deepEqual(classifyPixKey('11.222.333/0001-81'), { ok: true, type: 'CNPJ', normalized: '11222333000181' });
  assert.deepEqual(classifyPixKey('Fulano@Example.COM'), { ok: true, type: 'EMAIL', normalized: 'fulano@example.com' });
  assert.deepEqual(classifyPixKey('+55 (11) 98765-4321'), { ok: true, type: 'PHONE', normalized: '+5511987654321' });
  assert.deepEqual(classifyPixKey('7D9F0335-8DCC-4054-9BF9-0DBD61D36906'), {
    ok: true, type: 'EVP', normalized: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
  });
});

test('classifyPixKey rejects invalid keys with a reason', () => {
  const reason = (k: string) => {
    const r = classifyPixKey(k);
    assert.equal(r.ok, false, k);
    return (r as { reason: string }).reason;
  };
  assert.equal(reason('529.982.247-24'), 'invalid CPF check digits');
  assert.equal(reason('11222333000180'), 'invalid CNPJ check digits');
  assert.match(reason('+1 415 555 0100'), /\+55/);
  assert.match(reason('+55119876'), /\+55/);
  assert.match(reason('+551133334444'), /mobile/, 'a landline is not a DICT key');
  assert.match(reason('+5511812345678'), /mobile/);
  assert.equal(reason(`${'a'.repeat(71)}@ex.com`), 'e-mail key longer than 77 characters');
  assert.equal(classifyPixKey(`${'a'.repeat(70)}@ex.com`).ok, true); // exactly 77
  assert.equal(reason('foo@bar'), 'invalid e-mail key');
  assert.equal(reason('123e4567-e12b-12d1-a456-426655440000'), 'random key must be a version 4 UUID');
  assert.equal(reason(''), 'key is empty');
  assert.match(reason('hello'), /not a CPF/);
});
