// The Pix QR image: a 1-bit PNG written by src/domain/qr.ts that a QR reader (qr's decoder, which
// reads camera frames) turns back into exactly the BR Code in the response, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import encodeQR from 'qr';
import { decodeQR } from 'qr/decode.js';
import { qrPngBase64 } from '../../src/domain/qr.ts';
import { buildPixBrCode } from '../../src/domain/pix.ts';

/** Dark pixels of a PNG as read by pngjs, a decoder of every PNG colour type and row filter. */
function decode(png: Buffer) {
  const image = PNG.sync.read(png);
  const dark: boolean[] = [];
  for (let i = 0; i < image.width * image.height; i++) dark.push(image.data[i * 4]! < 128);
  return { width: image.width, height: image.height, data: image.data, dark, bitDepth: png[24]!, colorType: png[25]! };
}

const brCodes = [
  buildPixBrCode({ key: '11222333000181', merchantName: 'CAJA PAGAMENTOS', merchantCity: 'SAO PAULO', amount: '10.50', txid: 'CAJA1' }),
  buildPixBrCode({ key: '11222333000181', merchantName: 'CAJA PAGAMENTOS', merchantCity: 'SAO PAULO', amount: '123456.78', txid: 'CAJA987654321' }),
  'x'.repeat(400),
];

for (const text of brCodes) {
  test(`the 1-bit PNG reads back as the same text (${text.length} characters)`, () => {
    const png = decode(Buffer.from(qrPngBase64(text), 'base64'));
    assert.equal(png.width, png.height);
    assert.deepEqual([png.bitDepth, png.colorType], [1, 0], '1-bit greyscale');
    assert.equal(png.width % 4, 0, '4 pixels per module');
    // Dark and light pixels of the first row: the quiet zone is light.
    assert.ok(png.dark.slice(0, png.width * 8).every((d) => !d), 'a 2-module quiet zone');
    assert.equal(decodeQR({ width: png.width, height: png.height, data: png.data }), text);
    // Pixel for pixel the symbol qr computed, each module a 4×4 square.
    const modules = encodeQR(text, 'raw', { ecc: 'medium', border: 2 });
    assert.equal(png.width, modules.length * 4);
    png.dark.forEach((d, i) => assert.equal(d, modules[Math.floor(i / png.width / 4)]![Math.floor((i % png.width) / 4)], `pixel ${i}`));
  });
}

test('the PNG is small: a 1-bit image of a BR Code stays under 1 KB', () => {
  assert.ok(Buffer.from(qrPngBase64(brCodes[0]!), 'base64').length < 1024);
});
