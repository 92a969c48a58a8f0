// Identifiers and timestamps in the forms the Pix arrangement uses.
import { randomBytes, randomUUID } from 'node:crypto';

/** ISPB of the simulated payer's PSP (8 digits; any value will do, this one is no real bank). */
export const PAYER_ISPB = '99999008';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomAlnum(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += ALNUM[b % 62]; // 248 = 4 × 62: no bias
    }
  }
  return out;
}

function stamp(at: Date): string {
  return at.toISOString().replace(/\D/g, '').slice(0, 12); // yyyyMMddHHmm, UTC
}

/** End-to-end id of a Pix: `E` + payer ISPB + yyyyMMddHHmm + 11 letters or digits (32 characters). */
export function endToEndId(at: Date): string {
  return 'E' + PAYER_ISPB + stamp(at) + randomAlnum(11);
}

/** Return id of a devolução: `D` + ISPB + yyyyMMddHHmm + 11 letters or digits (32 characters). */
export function returnId(at: Date, ispb: string): string {
  return 'D' + ispb + stamp(at) + randomAlnum(11);
}

export const isEndToEndId = (s: string) => /^[ED]\d{8}\d{12}[a-zA-Z0-9]{11}$/.test(s);

/** A random EVP key ("chave aleatória"): a UUID v4. */
export const evpKey = () => randomUUID();

/** RFC 3339 with milliseconds, UTC: what the API's `date-time` fields carry. */
export const rfc3339 = (at: Date) => at.toISOString();
