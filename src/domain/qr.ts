// QR images for payment_info.secondary_metadata.qr_code, which carries bare base64
// PNG data (clients add their own data: prefix when displaying it).
//
// The qr package computes the symbol (version, mask, modules), the PNG is written here. The qrcode
// package used before took ≈0.5 ms for the symbol (its mask scoring) and drew an RGBA image
// through pngjs trying five row filters per row: ≈3-5 ms of CPU per Pix deposit in all, most of
// the cost of creating one. qr scores masks over packed bit rows (≈0.05 ms), and a QR symbol is
// black and white, so a 1-bit greyscale PNG with no row filter holds the picture (4 pixels per
// module, a 2-module quiet zone, as before) in a thirty-second of the raw bytes. Deflate level 1:
// half the CPU of the default level for ≈120 more bytes on a BR Code's image.

import { crc32, deflateSync } from 'node:zlib';
import encodeQR from 'qr';

/** Pixels per module and quiet-zone width in modules: the rendering every client has seen so far. */
const SCALE = 4;
const MARGIN = 2;
const MODULES_PER_BYTE = 8 / SCALE;
/** A module's pixels in the leftmost position of a byte (1 bits, cleared when dark). */
const MODULE_BITS = (0xff << (8 - SCALE)) & 0xff;

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** A 1-bit greyscale PNG of a square module matrix (true = dark, quiet zone included), SCALE pixels per module. */
export function qrMatrixToPng(modules: boolean[][]): Buffer {
  const width = modules.length * SCALE;
  const stride = 1 + Math.ceil(width / 8); // filter byte, then 8 pixels a byte, 1 = white
  const raw = Buffer.alloc(stride * width, 0xff);
  // Each module row is packed once, then copied to its SCALE pixel rows.
  for (let my = 0; my < modules.length; my++) {
    const first = my * SCALE * stride;
    raw[first] = 0; // filter: none
    const line = modules[my]!;
    // SCALE divides 8: a dark module clears its SCALE bits of one byte in one operation.
    for (let mx = 0; mx < line.length; mx++) {
      if (line[mx]) raw[first + 1 + Math.floor(mx / MODULES_PER_BYTE)]! &= ~(MODULE_BITS >> ((mx % MODULES_PER_BYTE) * SCALE));
    }
    for (let k = 1; k < SCALE; k++) raw.copy(raw, first + k * stride, first, first + stride);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(width, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  // compression, filter method and interlace stay 0
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

/** Error correction M: BR Codes stay scannable from phone screens with a small logo or glare. */
export function qrPngBase64(text: string): string {
  return qrMatrixToPng(encodeQR(text, 'raw', { ecc: 'medium', border: MARGIN })).toString('base64');
}
