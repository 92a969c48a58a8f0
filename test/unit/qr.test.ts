// The Pix QR image: a 1-bit PNG written by src/domain/qr.ts that a QR reader (qr's decoder, which
// reads camera frames) turns back into exactly the BR Code in the response, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import encodeQR from 'qr';
import { decodeQR } from 'qr/decode.js';
import { inflateRawSync } from 'node:zlib';
import { qrMatrixToPng, qrPngBase64 } from '../../src/domain/qr.ts';
import { BitWriter, canonicalCode, writeMatch } from '../../src/domain/deflate.ts';
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

// Every size of symbol: the rows of version 40 need their three copied pixel rows in two matches
// (276 bytes, over deflate's 258), and the smaller versions the shortest runs.
for (const version of [1, 2, 7, 10, 21, 27, 39, 40]) {
  test(`the PNG of a version ${version} symbol is the symbol, pixel for pixel`, () => {
    const modules = encodeQR(`caja ${version}`, 'raw', { ecc: 'low', border: 2, version });
    const png = decode(qrMatrixToPng(modules));
    assert.equal(png.width, (17 + 4 * version + 4) * 4);
    png.dark.forEach((d, i) => {
      if (d !== modules[Math.floor(i / png.width / 4)]![Math.floor((i % png.width) / 4)]) assert.fail(`pixel ${i} differs`);
    });
  });
}

test('an all-light and an all-dark matrix (the longest runs) read back', () => {
  for (const dark of [false, true]) {
    const modules = Array.from({ length: 25 }, () => new Array<boolean>(25).fill(dark));
    const png = decode(qrMatrixToPng(modules));
    assert.ok(png.dark.every((d) => d === dark));
  }
});

test('Huffman codes: the canonical codes of RFC 1951 §3.2.2, and incomplete sets refused', () => {
  // The RFC's example: lengths (3, 3, 3, 3, 3, 2, 4, 4) give 010, 011, 100, 101, 110, 00, 1110, 1111.
  const { codes } = canonicalCode([3, 3, 3, 3, 3, 2, 4, 4]);
  const msbFirst = ['010', '011', '100', '101', '110', '00', '1110', '1111'];
  // BitWriter emits the low bit first, so the codes are stored bit-reversed.
  msbFirst.forEach((bits, s) => assert.equal(codes[s], Number.parseInt([...bits].reverse().join(''), 2), `symbol ${s}`));
  assert.throws(() => canonicalCode([2, 2, 2]), /complete prefix code/);
  assert.throws(() => canonicalCode([1, 1, 1]), /complete prefix code/);
});

test('a deflate stream written with BitWriter and writeMatch inflates with zlib', () => {
  // Literal "ab" then a match of 9 bytes at distance 2 ("ababababa"), in fixed-code form built from
  // the same helpers: the lengths of RFC 1951 §3.2.6.
  const lengths = [...new Array(144).fill(8), ...new Array(112).fill(9), ...new Array(24).fill(7), ...new Array(6).fill(8)];
  const literals = canonicalCode(lengths.concat([8, 8]).slice(0, 288));
  const distances = canonicalCode(new Array(32).fill(5));
  const w = new BitWriter(new Uint8Array(64), 0);
  w.write(1, 1);
  w.write(1, 2); // fixed codes
  for (const c of 'ab') w.write(literals.codes[c.charCodeAt(0)]!, literals.lengths[c.charCodeAt(0)]!);
  writeMatch(w, literals, distances, 9, 2);
  w.write(literals.codes[256]!, literals.lengths[256]!);
  const end = w.flush();
  assert.equal(inflateRawSync(w.out.subarray(0, end)).toString(), 'abababababa');
});
