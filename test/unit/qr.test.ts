// The Pix QR image: a 1-bit PNG written by src/domain/qr.ts that a QR reader (qr's decoder, which
// reads camera frames) turns back into exactly the BR Code in the response, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import encodeQR from 'qr';
import { decodeQR } from 'qr/decode.js';
import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { type QrSymbol, qrPngBase64, qrSymbolToPng, qrVersionFor } from '../../src/domain/qr.ts';
import { BitWriter, canonicalCode, writeMatch } from '../../src/domain/deflate.ts';
import { buildPixBrCode } from '../../src/domain/pix.ts';

/** Dark pixels of a PNG as read by pngjs, a decoder of every PNG colour type and row filter. */
function decode(png: Buffer) {
  const image = PNG.sync.read(png);
  const dark: boolean[] = [];
  for (let i = 0; i < image.width * image.height; i++) dark.push(image.data[i * 4]! < 128);
  return { width: image.width, height: image.height, data: image.data, dark, bitDepth: png[24]!, colorType: png[25]! };
}

/** A picture of modules (quiet zone of `border` included) packed as qr packs a symbol. */
function pack(modules: boolean[][], border: number): QrSymbol {
  const size = modules.length - 2 * border;
  const words = (size + 31) >>> 5;
  const v = new Uint32Array(words * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if (modules[y + border]![x + border]) v[y * words + (x >>> 5)]! |= 1 << (x & 31);
  }
  return { size, words, v };
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
    const png = decode(qrSymbolToPng(pack(modules, 2)));
    assert.equal(png.width, (17 + 4 * version + 4) * 4);
    png.dark.forEach((d, i) => {
      if (d !== modules[Math.floor(i / png.width / 4)]![Math.floor((i % png.width) / 4)]) assert.fail(`pixel ${i} differs`);
    });
  });
}

test('an all-light and an all-dark symbol (the longest runs) read back, in their light quiet zone', () => {
  for (const dark of [false, true]) {
    const modules = Array.from({ length: 25 }, (_, y) => Array.from({ length: 25 }, (_, x) => dark && x >= 2 && y >= 2 && x < 23 && y < 23));
    const png = decode(qrSymbolToPng(pack(modules, 2)));
    png.dark.forEach((d, i) => {
      if (d !== modules[Math.floor(i / png.width / 4)]![Math.floor((i % png.width) / 4)]) assert.fail(`pixel ${i} differs`);
    });
  }
});

test('the version for a text is the one encodeQR picks, on both sides of every change of version', () => {
  const pickedByQr = (length: number) => (encodeQR('x'.repeat(length), 'raw', { ecc: 'medium', border: 2 }).length - 4 - 17) / 4;
  // Both choices grow with the length, so agreeing at each edge of ours is agreeing everywhere.
  let edges = 0;
  for (let length = 2; length <= 2331; length++) {
    if (qrVersionFor(length) === qrVersionFor(length - 1)) continue;
    edges++;
    assert.equal(pickedByQr(length - 1), qrVersionFor(length - 1), `${length - 1} bytes`);
    assert.equal(pickedByQr(length), qrVersionFor(length), `${length} bytes`);
  }
  assert.equal(edges, 39);
  assert.equal(pickedByQr(1), qrVersionFor(1));
  assert.equal(pickedByQr(2331), 40);
  assert.throws(() => qrVersionFor(2332), RangeError);
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

test('the image is the symbol encodeQR computes, mask and all, for texts of every length a BR Code has', () => {
  // BR Codes run from about 100 to 300 characters; their masks vary with the content.
  for (let length = 60; length <= 400; length += 7) {
    const text = `br.gov.bcb.pix${randomBytes(length).toString('base64').slice(0, length - 14)}`;
    const png = decode(Buffer.from(qrPngBase64(text), 'base64'));
    const modules = encodeQR(text, 'raw', { ecc: 'medium', border: 2 });
    assert.equal(png.width, modules.length * 4, `${length} characters`);
    png.dark.forEach((d, i) => {
      if (d !== modules[Math.floor(i / png.width / 4)]![Math.floor((i % png.width) / 4)]) assert.fail(`${length} characters: pixel ${i} differs`);
    });
  }
});
