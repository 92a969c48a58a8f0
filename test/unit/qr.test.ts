// The Pix QR image: a 1-bit PNG written by src/domain/qr.ts that a QR reader (qr's decoder, which
// reads camera frames) turns back into exactly the BR Code in the response, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { decodeQR } from 'qr/decode.js';
import { qrPngBase64 } from '../../src/domain/qr.ts';
import { buildPixBrCode } from '../../src/domain/pix.ts';

/** Decodes the PNGs qr.ts writes (1-bit greyscale, filter 0): dark pixels as booleans. */
function decode(png: Buffer): { width: number; height: number; dark: boolean[] } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const len = png.readUInt32BE(offset);
    const type = png.subarray(offset + 4, offset + 8).toString('ascii');
    const data = png.subarray(offset + 8, offset + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.deepEqual([...data.subarray(8)], [1, 0, 0, 0, 0], 'bit depth 1, greyscale, no interlace');
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = 1 + Math.ceil(width / 8);
  assert.equal(raw.length, stride * height);
  const dark: boolean[] = [];
  for (let y = 0; y < height; y++) {
    assert.equal(raw[y * stride], 0, 'filter none');
    for (let x = 0; x < width; x++) dark.push((raw[y * stride + 1 + (x >> 3)]! & (0x80 >> (x & 7))) === 0);
  }
  return { width, height, dark };
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
    assert.equal(png.width % 4, 0, '4 pixels per module');
    // Dark and light pixels of the first row: the quiet zone is light.
    assert.ok(png.dark.slice(0, png.width * 8).every((d) => !d), 'a 2-module quiet zone');
    const rgba = new Uint8Array(png.width * png.height * 4).fill(255);
    png.dark.forEach((d, i) => {
      if (d) rgba[i * 4] = rgba[i * 4 + 1] = rgba[i * 4 + 2] = 0;
    });
    assert.equal(decodeQR({ width: png.width, height: png.height, data: rgba }), text);
  });
}

test('the PNG is small: a 1-bit image of a BR Code stays under 1 KB', () => {
  assert.ok(Buffer.from(qrPngBase64(brCodes[0]!), 'base64').length < 1024);
});
