// A Pix payment_info is stored without its QR image and served with it again, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildPaymentInfo } from '../../src/domain/payment-info.ts';
import { findMethod } from '../../src/domain/catalog.ts';
import { dec } from '../../src/domain/money.ts';
import { toJson } from '../../src/deposits/json.ts';
import { servedPaymentInfo, storedPaymentInfo } from '../../src/deposits/stored-payment-info.ts';

const base = {
  token: 'AAAAAAAAAAAAAAAAAAAAAA',
  createdAt: new Date('2026-03-01T12:00:00Z'),
  expiresAt: new Date('2026-03-04T12:00:00Z'),
  publicBaseUrl: 'https://pay.example.com',
};

test('a Pix payment_info is stored without its image and served with the same bytes', async () => {
  const built = toJson(await buildPaymentInfo({ ...base, depositId: 123, method: findMethod('BR', 'IX')!, amount: dec('57.10') }));
  const stored = storedPaymentInfo(built);
  assert.equal(JSON.parse(stored).secondary_metadata.qr_code, null);
  assert.equal(JSON.parse(stored).secondary_metadata.digitable_line, JSON.parse(built).secondary_metadata.digitable_line);
  assert.ok(stored.length < built.length - 700, `${stored.length} against ${built.length}`);
  // Everything but the image keeps its exact text (amounts included): nothing is parsed and written again.
  assert.equal(stored, built.replace(/"qr_code":"[^"]*"/, '"qr_code":null'));
  assert.equal(servedPaymentInfo(stored), built);
});

test('what has no BR Code with an image, and rows stored with their image, are left as they are', async () => {
  for (const [country, code] of [['BR', 'BL'], ['MX', 'SE'], ['MX', 'OX']] as const) {
    const info = await buildPaymentInfo({
      ...base, depositId: 9, method: findMethod(country, code)!, amount: dec('100'),
      payer: { document: '52998224725', name: 'Ana Silva', address: { street: 'Av. Paulista 1000', city: 'São Paulo', state: 'SP', zip_code: '01310-100' } },
    } as Parameters<typeof buildPaymentInfo>[0]);
    const text = toJson(info);
    assert.equal(storedPaymentInfo(text), text, code);
    assert.equal(servedPaymentInfo(text), text, code);
  }
  const withImage = toJson(await buildPaymentInfo({ ...base, depositId: 5, method: findMethod('BR', 'IX')!, amount: dec('1') }));
  assert.equal(servedPaymentInfo(withImage), withImage);
  assert.equal(servedPaymentInfo(null), null);
  assert.equal(storedPaymentInfo(null), null);
});
