// The Pix QR image: a 1-bit PNG written by src/domain/qr.ts, pixel for pixel the picture the
// qrcode package's own renderer draws (same symbol, size, quiet zone), with the BR Code unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import QRCode from 'qrcode';
import { qrPngBase64 } from '../../src/domain/qr.ts';
import { buildPixBrCode } from '../../src/domain/pix.ts';

// qrcode's PNG renderer draws these RGBA pixels and hands them to pngjs.
const { qrToImageData, getImageWidth, getOptions } = createRequire(import.meta.url)('qrcode/lib/renderer/utils.js') as {
  qrToImageData(img: Uint8ClampedArray, qr: unknown, opts: unknown): void;
  getImageWidth(size: number, opts: unknown): number;
  getOptions(o: unknown): unknown;
};

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
  test(`1-bit PNG is qrcode's own picture, pixel for pixel (${text.length} characters)`, () => {
    const mine = decode(Buffer.from(qrPngBase64(text), 'base64'));
    const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
    const opts = getOptions({ margin: 2 });
    const size = getImageWidth(qr.modules.size, opts);
    const rgba = new Uint8ClampedArray(size * size * 4);
    qrToImageData(rgba, qr, opts);
    assert.equal(mine.width, size);
    assert.equal(mine.height, size);
    for (let i = 0; i < size * size; i++) {
      if (mine.dark[i] !== (rgba[i * 4] === 0)) assert.fail(`pixel ${i % size},${Math.floor(i / size)} differs`);
    }
  });
}

test('the PNG is small: a 1-bit image of a BR Code stays under 1 KB', () => {
  assert.ok(Buffer.from(qrPngBase64(brCodes[0]!), 'base64').length < 1024);
});
