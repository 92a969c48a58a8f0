// payment_info per kind of method: the codes must be real (valid check digits, CRC, QR content).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildPaymentInfo, STAGING_BENEFICIARY, depositReference, formatDateTime } from '../../src/domain/payment-info.ts';
import { findMethod } from '../../src/domain/catalog.ts';
import { dec } from '../../src/domain/money.ts';
import { isValidCnpj, parsePixBrCode, verifyPixCrc } from '../../src/domain/pix.ts';
import { isValidClabe } from '../../src/domain/clabe.ts';
import { boletoFromDigitableLine, isValidBoletoBarcode, isValidLuhn, isValidVoucherBarcode, parseBoletoBarcode } from '../../src/domain/vouchers.ts';

const base = {
  token: 'AAAAAAAAAAAAAAAAAAAAAA',
  createdAt: new Date('2026-03-01T12:00:00Z'),
  expiresAt: new Date('2026-03-04T12:00:00Z'),
  publicBaseUrl: 'https://pay.example.com',
};

test('dates and references', () => {
  assert.equal(formatDateTime(new Date('2026-03-01T02:03:04.567Z')), '2026-03-01 02:03:04');
  assert.ok(isValidLuhn(depositReference(42)));
  assert.equal(depositReference(42).length, 12);
  assert.ok(isValidCnpj(STAGING_BENEFICIARY.cnpj));
});

test('Pix: BR Code with a valid CRC and the amount, QR PNG of it', async () => {
  const info = await buildPaymentInfo({ ...base, depositId: 123, method: findMethod('BR', 'IX')!, amount: dec('57.04') });
  assert.equal(info.expiration_date, '2026-03-04 12:00:00');
  const line = info.secondary_metadata!.digitable_line!;
  assert.ok(verifyPixCrc(line));
  const parsed = parsePixBrCode(line);
  assert.ok(parsed.ok);
  assert.equal(parsed.ok && parsed.value.amount, '57.04');
  const png = Buffer.from(info.secondary_metadata!.qr_code!, 'base64');
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.equal(info.secondary_metadata!.reference, depositReference(123));
});

test('SPEI: a CLABE with its check digit, unique per deposit', async () => {
  const a = await buildPaymentInfo({ ...base, depositId: 7, method: findMethod('MX', 'SE')!, amount: dec('100') });
  const b = await buildPaymentInfo({ ...base, depositId: 8, method: findMethod('MX', 'SE')!, amount: dec('100') });
  assert.ok(isValidClabe(a.metadata!.account!));
  assert.notEqual(a.metadata!.account, b.metadata!.account);
  assert.ok(a.metadata!.beneficiary_name);
  assert.match(a.metadata!.reference!, /^\d{7}$/);
});

test('Brazilian bank transfer carries agency, account and CNPJ', async () => {
  const info = await buildPaymentInfo({ ...base, depositId: 9, method: findMethod('BR', 'BB')!, amount: dec('100'), payerDocument: '52998224725', payerDocumentType: 'CPF' });
  assert.deepEqual(Object.keys(info.metadata!).sort(), ['CNPJ', 'account', 'agency', 'beneficiary_name', 'payer_document', 'payer_document_type', 'reference']);
});

test('Boleto: barcode and digitable line with every check digit, amount and due date', async () => {
  const info = await buildPaymentInfo({ ...base, depositId: 55, method: findMethod('BR', 'BL')!, amount: dec('101.50') });
  const m = info.metadata!;
  assert.ok(isValidBoletoBarcode(m.bar_code!));
  const fromLine = boletoFromDigitableLine(m.digitable_line!);
  assert.ok(fromLine.ok);
  assert.equal(fromLine.ok && fromLine.barCode, m.bar_code);
  assert.equal(parseBoletoBarcode(m.bar_code!)!.amount, '101.50');
  assert.equal(m.receipt_url, 'https://pay.example.com/vouchers/AAAAAAAAAAAAAAAAAAAAAA');
});

test('Cash voucher (OXXO): Luhn reference and barcode', async () => {
  const info = await buildPaymentInfo({ ...base, depositId: 77, method: findMethod('MX', 'OX')!, amount: dec('250') });
  const m = info.metadata!;
  assert.ok(isValidLuhn(m.reference!));
  assert.equal(m.reference!.length, 14);
  assert.ok(isValidVoucherBarcode(m.bar_code!));
  assert.equal(m.digitable_line!.replace(/ /g, ''), m.reference);
});

test('wallets carry no metadata', async () => {
  const info = await buildPaymentInfo({ ...base, depositId: 1, method: findMethod('BR', 'PP')!, amount: dec('10') });
  assert.equal(info.metadata, undefined);
  assert.equal(info.type, 'WALLET');
});
