// QR images for payment_info.secondary_metadata.qr_code, which carries bare base64
// PNG data (clients add their own data: prefix when displaying it).
//
// The qr package computes the symbol (version, mask, modules); the PNG is written here, straight
// from the modules. The qrcode package used before took ≈0.5 ms for the symbol and drew an RGBA
// image through pngjs trying five row filters per row: ≈3-5 ms of CPU per Pix deposit in all.
// qr scores masks over packed bit rows (≈0.03 ms). A QR symbol is black and white, so a 1-bit
// greyscale PNG holds the picture (4 pixels per module, a 2-module quiet zone, as before).
//
// The symbol is read as qr computes it, 32 modules to a word, through the two steps of its
// encoder that it exports for its own tests (encodeData, drawSymbol; the version is pinned and
// test/unit/qr.test.ts checks every image against qr's public encodeQR). Its public output is a
// boolean[][] of the picture, quiet zone included: building it took 17 µs of the 46 per symbol
// and left 60 arrays per deposit for the garbage collector, and reading it back 9 µs more. A BR
// Code's image now takes ≈48 µs in all, against ≈81 through the boolean[][] (64 BR Codes, one
// process, no load).
//
// The image data is compressed here too, because its shape is known in advance and a general
// compressor spends its time finding what we already know: each module row is 4 identical pixel
// rows, the first written as it is (PNG filter None) and the other three as "same as the row
// above" (filter Up: a 2 and zeros), which are exactly the bytes 4 rows back, one deflate match;
// and a pixel byte holds 2 modules, so it is one of 4 values, each given a 2- or 3-bit code.
// With zlib (level 1, small window: a stream object and native state to create and collect per
// image) an image took 34 µs with its base64 and 716 bytes; this takes 12 µs for 637 bytes
// (≈15 µs of a Pix creation's CPU under load, against ≈35). A row's modules are read eight at a
// time, each octet's four literals written as one run of bits and its checksum added in one
// step (OCTETS): the PNG in 0.64 × the time of a call per pixel byte, the same bytes.

import { crc32 } from 'node:zlib';
import { _tests as qrSteps } from 'qr';
import { BitWriter, canonicalCode, DISTANCE_SYMBOLS, END_OF_BLOCK, LITERAL_LENGTH_SYMBOLS, MAX_MATCH, writeDynamicHeader, writeMatch, type WrittenBits } from './deflate.ts';

/** Pixels per module and quiet-zone width in modules: the rendering every client has seen so far. */
const SCALE = 4;
const MARGIN = 2;
const FILTER_NONE = 0;
const FILTER_UP = 2;
/** A pixel byte holds two modules (SCALE 4): the high nibble the left one; 1 bits are light. */
const LIGHT_LEFT = 0xf0;
const LIGHT_RIGHT = 0x0f;
const ADLER_MOD = 65521;

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** CRC of the empty IEND chunk, the same in every PNG. */
const IEND_CRC = 0xae426082;

/**
 * The block's codes, fixed for every image. Literals: the four pixel bytes at 2-3 bits (0x00 also
 * the filter byte None), the filter byte Up, end of block and every length code; distances: all
 * 30 codes (which ones a symbol uses depends on its size). canonicalCode checks both are complete.
 */
const literalLengths = new Array<number>(LITERAL_LENGTH_SYMBOLS).fill(0);
literalLengths[0x00] = 2;
literalLengths[0xff] = 2;
literalLengths[LIGHT_RIGHT] = 2;
literalLengths[LIGHT_LEFT] = 3;
literalLengths[FILTER_UP] = 7;
for (let s = END_OF_BLOCK; s < LITERAL_LENGTH_SYMBOLS; s++) literalLengths[s] = 8;
const distanceLengths = Array.from({ length: DISTANCE_SYMBOLS }, (_, d) => (d < 2 ? 4 : 5));
/** The code-length code: 3 bits for the symbols the tables above need most, 4 for two more. */
const codeLengthLengths = new Array<number>(19).fill(0);
for (const s of [0, 2, 4, 5, 8, 16, 18]) codeLengthLengths[s] = 3;
for (const s of [3, 7]) codeLengthLengths[s] = 4;

const LITERALS = canonicalCode(literalLengths);
const DISTANCES = canonicalCode(distanceLengths);
/** zlib header (deflate, fastest) and the block header, written once. */
const STREAM_HEADER: WrittenBits = (() => {
  const w = new BitWriter(new Uint8Array(128), 0);
  w.write(0x78, 8);
  w.write(0x01, 8);
  writeDynamicHeader(w, literalLengths, distanceLengths, codeLengthLengths);
  return w.written();
})();

function writeLiteral(w: BitWriter, byte: number): void {
  w.write(LITERALS.codes[byte]!, LITERALS.lengths[byte]!);
}

/** Copies `length` bytes from `distance` back, in matches of at most 258 (none shorter than 3). */
function writeCopy(w: BitWriter, length: number, distance: number): void {
  while (length > 0) {
    const n = length > MAX_MATCH ? Math.min(MAX_MATCH, length - 3) : length;
    writeMatch(w, LITERALS, DISTANCES, n, distance);
    length -= n;
  }
}

/**
 * A QR symbol as the qr package computes it, without its quiet zone: module (x, y) is dark when
 * bit x % 32 of word y * words + x / 32 of v is set.
 */
export type QrSymbol = { size: number; words: number; v: Uint32Array };

/** The pixel byte of two modules, indexed by their bits (1 = dark; bit 0 the left module). */
const PAIR_BYTES = [LIGHT_LEFT | LIGHT_RIGHT, LIGHT_RIGHT, LIGHT_LEFT, 0];

/**
 * Eight modules at once (four pixel bytes), indexed by their bits (bit k the k-th module from the
 * left, 1 = dark): the four literals' codes as one run of bits (each at most 3 bits, so at most
 * 12), what the four bytes add to the Adler-32 sum a, and to b beyond 4 × a: a row is written in
 * a quarter of the calls, its checksum in a quarter of the steps.
 */
const OCTETS = (() => {
  const code = new Uint16Array(256);
  const length = new Uint8Array(256);
  const sum = new Uint16Array(256);
  const weighted = new Uint16Array(256);
  for (let m = 0; m < 256; m++) {
    for (let k = 0; k < 4; k++) {
      const byte = PAIR_BYTES[(m >>> (2 * k)) & 3]!;
      code[m]! |= LITERALS.codes[byte]! << length[m]!;
      length[m]! += LITERALS.lengths[byte]!;
      sum[m]! += byte;
      weighted[m]! += (4 - k) * byte;
    }
  }
  return { code, length, sum, weighted };
})();

/** Modules x to x + 7 of the row starting at word `row` (x may be negative: light outside the symbol). */
function octetAt(symbol: QrSymbol, row: number, x: number): number {
  const { size, words, v } = symbol;
  let bits: number;
  if (x < 0) bits = v[row]! << -x;
  else {
    const wi = x >>> 5;
    const shift = x & 31;
    bits = v[row + wi]! >>> shift;
    if (shift > 24 && wi + 1 < words) bits |= v[row + wi + 1]! << (32 - shift);
  }
  // Modules past the symbol's edge are light (the quiet zone, and the last byte's padding).
  return x + 8 > size ? bits & ((1 << Math.max(0, size - x)) - 1) : bits & 0xff;
}

/** A 1-bit greyscale PNG of a QR symbol with a MARGIN-module quiet zone, SCALE pixels per module. */
export function qrSymbolToPng(symbol: QrSymbol): Buffer {
  const size = symbol.size + 2 * MARGIN;
  const width = size * SCALE;
  const rowBytes = Math.ceil(width / 8);
  const stride = 1 + rowBytes;
  // Room for the worst case: 3 bits a literal, two matches of ≤ 31 bits per module row.
  const png = Buffer.allocUnsafe(128 + STREAM_HEADER.bytes.length + size * (Math.ceil((stride * 3) / 8) + 8));
  png.set(SIGNATURE, 0);
  let at = SIGNATURE.length;
  png.writeUInt32BE(13, at);
  png.write('IHDR', at + 4, 'ascii');
  png.writeUInt32BE(width, at + 8);
  png.writeUInt32BE(width, at + 12);
  png[at + 16] = 1; // bit depth
  png[at + 17] = 0; // greyscale
  png[at + 18] = 0; // compression
  png[at + 19] = 0; // filter method
  png[at + 20] = 0; // no interlace
  png.writeUInt32BE(crc32(png.subarray(at + 4, at + 21)), at + 21);
  const idat = at + 25;

  const w = new BitWriter(png, idat + 8);
  w.append(STREAM_HEADER);
  // Adler-32 of the raw image data, the zlib stream's checksum, summed as the bytes are written.
  let a = 1;
  let b = 0;
  // A module row's pixel bytes: whole octets of modules, then the 1-3 bytes left.
  const octets = rowBytes >>> 2;
  for (let my = 0; my < size; my++) {
    const y = my - MARGIN;
    const row = y >= 0 && y < symbol.size ? y * symbol.words : -1;
    writeLiteral(w, FILTER_NONE);
    b += a;
    for (let o = 0; o < octets; o++) {
      const m = row >= 0 ? octetAt(symbol, row, 8 * o - MARGIN) : 0;
      w.write(OCTETS.code[m]!, OCTETS.length[m]!);
      b += 4 * a + OCTETS.weighted[m]!;
      a += OCTETS.sum[m]!;
    }
    const rest = row >= 0 ? octetAt(symbol, row, 8 * octets - MARGIN) : 0;
    for (let k = 0; k < rowBytes - 4 * octets; k++) {
      const byte = PAIR_BYTES[(rest >>> (2 * k)) & 3]!;
      writeLiteral(w, byte);
      a += byte;
      b += a;
    }
    // Three Up rows: a 2 and rowBytes zeros each. The first module row spells them out (a 2, a
    // zero and a run of zeros, then that row twice); every later one copies the previous ones.
    if (my === 0) {
      writeLiteral(w, FILTER_UP);
      writeLiteral(w, 0);
      writeCopy(w, rowBytes - 1, 1);
      writeCopy(w, 2 * stride, stride);
    } else {
      writeCopy(w, (SCALE - 1) * stride, SCALE * stride);
    }
    for (let k = 1; k < SCALE; k++) {
      a += FILTER_UP;
      b += a + a * rowBytes;
    }
    a %= ADLER_MOD;
    b %= ADLER_MOD;
  }
  writeLiteral(w, END_OF_BLOCK);
  let end = w.flush();
  png.writeUInt32BE(((b << 16) | a) >>> 0, end);
  end += 4;

  png.writeUInt32BE(end - idat - 8, idat);
  png.write('IDAT', idat + 4, 'ascii');
  png.writeUInt32BE(crc32(png.subarray(idat + 4, end)), end);
  end += 4;
  png.writeUInt32BE(0, end);
  png.write('IEND', end + 4, 'ascii');
  png.writeUInt32BE(IEND_CRC, end + 8);
  return png.subarray(0, end + 12);
}

/**
 * Bytes a symbol of each version (1 to 40) holds in byte mode at error correction M (ISO/IEC
 * 18004, table 7): the smallest version that holds the text is the one encodeQR picks.
 */
const BYTE_CAPACITY_M = [
  14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560, 624, 666,
  711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370, 1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331,
];

/** The version of the symbol for `bytes` bytes at error correction M. */
export function qrVersionFor(bytes: number): number {
  const i = BYTE_CAPACITY_M.findIndex((capacity) => bytes <= capacity);
  if (i < 0) throw new RangeError(`a QR symbol holds at most ${BYTE_CAPACITY_M.at(-1)} bytes, got ${bytes}`);
  return i + 1;
}

const utf8 = new TextEncoder();

/**
 * Error correction M: BR Codes stay scannable from phone screens with a small logo or glare.
 * Byte mode, which is what encodeQR chooses for a BR Code: it always holds lower-case letters
 * (br.gov.bcb.pix), outside the alphanumeric mode's alphabet.
 */
export function qrPngBase64(text: string): string {
  const bytes = utf8.encode(text);
  const version = qrVersionFor(bytes.length);
  // drawSymbol returns a matrix it reuses on its next call: the PNG is written before then.
  const symbol = qrSteps.drawSymbol(version, 'medium', qrSteps.encodeData(version, 'medium', text, 'byte', bytes));
  return qrSymbolToPng(symbol).toString('base64');
}
