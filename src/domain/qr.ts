// QR images for payment_info.secondary_metadata.qr_code, which carries bare base64
// PNG data (clients add their own data: prefix when displaying it).
//
// The qr package computes the symbol (version, mask, modules), the PNG is written here. The qrcode
// package used before took ≈0.5 ms for the symbol (its mask scoring) and drew an RGBA image
// through pngjs trying five row filters per row: ≈3-5 ms of CPU per Pix deposit in all, most of
// the cost of creating one. qr scores masks over packed bit rows (≈0.05 ms), and a QR symbol is
// black and white, so a 1-bit greyscale PNG holds the picture (4 pixels per module, a 2-module
// quiet zone, as before) in a thirty-second of the raw bytes. Each module row is SCALE identical
// pixel rows: the first is written as it is (filter None), the others as "same as the row above"
// (filter Up, all zero bytes), which deflate folds into a few bytes without searching for them.
// Deflate level 1 with a 4 kB window and small hash: the matches are never farther than a row,
// and zlib's default state (≈256 kB a call) cost more to set up and collect than the compression.

import { crc32, deflateSync } from 'node:zlib';
import encodeQR from 'qr';

/** Pixels per module and quiet-zone width in modules: the rendering every client has seen so far. */
const SCALE = 4;
const MARGIN = 2;
const MODULES_PER_BYTE = 8 / SCALE;
/** A module's pixels in the leftmost position of a byte (1 bits, cleared when dark). */
const MODULE_BITS = (0xff << (8 - SCALE)) & 0xff;
const FILTER_NONE = 0;
const FILTER_UP = 2;
const DEFLATE = { level: 1, windowBits: 12, memLevel: 4 };

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The raw image data: per pixel row a filter byte, then 8 pixels a byte (1 = white). */
function scanlines(modules: boolean[][]): { width: number; raw: Buffer } {
  const width = modules.length * SCALE;
  const stride = 1 + Math.ceil(width / 8);
  // Zero-filled: the Up rows stay all zeros but for their filter byte.
  const raw = Buffer.alloc(stride * width);
  for (let my = 0; my < modules.length; my++) {
    const first = my * SCALE * stride;
    raw[first] = FILTER_NONE;
    raw.fill(0xff, first + 1, first + stride);
    const line = modules[my]!;
    // SCALE divides 8: a dark module clears its SCALE bits of one byte in one operation.
    for (let mx = 0; mx < line.length; mx++) {
      if (line[mx]) raw[first + 1 + Math.floor(mx / MODULES_PER_BYTE)]! &= ~(MODULE_BITS >> ((mx % MODULES_PER_BYTE) * SCALE));
    }
    for (let k = 1; k < SCALE; k++) raw[first + k * stride] = FILTER_UP;
  }
  return { width, raw };
}

/** Writes one chunk (length, type, data, CRC of type and data) at `at`; returns the next offset. */
function writeChunk(png: Buffer, at: number, type: string, data: Uint8Array): number {
  png.writeUInt32BE(data.length, at);
  png.write(type, at + 4, 'ascii');
  png.set(data, at + 8);
  png.writeUInt32BE(crc32(png.subarray(at + 4, at + 8 + data.length)), at + 8 + data.length);
  return at + 12 + data.length;
}

/** A 1-bit greyscale PNG of a square module matrix (true = dark, quiet zone included), SCALE pixels per module. */
export function qrMatrixToPng(modules: boolean[][]): Buffer {
  const { width, raw } = scanlines(modules);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(width, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  // compression, filter method and interlace stay 0
  const idat = deflateSync(raw, DEFLATE);
  // One buffer for the file: signature, IHDR, IDAT, IEND (12 bytes of framing each).
  const png = Buffer.allocUnsafe(SIGNATURE.length + 3 * 12 + ihdr.length + idat.length);
  png.set(SIGNATURE, 0);
  let at = writeChunk(png, SIGNATURE.length, 'IHDR', ihdr);
  at = writeChunk(png, at, 'IDAT', idat);
  writeChunk(png, at, 'IEND', new Uint8Array(0));
  return png;
}

/** Error correction M: BR Codes stay scannable from phone screens with a small logo or glare. */
export function qrPngBase64(text: string): string {
  return qrMatrixToPng(encodeQR(text, 'raw', { ecc: 'medium', border: MARGIN })).toString('base64');
}
