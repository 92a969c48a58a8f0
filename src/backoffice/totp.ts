// Time-based one-time passwords (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits), the kind every
// authenticator app reads from an otpauth:// URI. Small enough to keep here rather than depend on
// a library for it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(buf: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=]/g, '');
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const c of clean) {
    const i = B32.indexOf(c);
    if (i < 0) throw new Error('not base32');
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

export function totpCode(secret: string, at: Date, stepOffset = 0): string {
  const counter = totpStep(at) + stepOffset;
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const h = createHmac('sha1', base32Decode(secret)).update(msg).digest();
  const o = h[h.length - 1]! & 15;
  const n = (h.readUInt32BE(o) & 0x7fffffff) % 1_000_000;
  return String(n).padStart(6, '0');
}

export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 30000);
}

/**
 * The time step a code belongs to, or null: the current step and one either side are accepted
 * (clocks drift, people type slowly). The caller refuses a step at or before the last one it
 * accepted for that person, so a code works once (auth.ts).
 */
export function totpMatchStep(secret: string, code: string, at: Date): number | null {
  const given = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(given)) return null;
  let found: number | null = null;
  // Every candidate is compared, so the time taken does not tell which one matched.
  for (const d of [-1, 0, 1]) {
    if (timingSafeEqual(Buffer.from(totpCode(secret, at, d)), Buffer.from(given)) && found === null) found = totpStep(at) + d;
  }
  return found;
}

/** Whether a code is right now (any step of the window); see totpMatchStep for the once-only rule. */
export function verifyTotp(secret: string, code: string, at: Date): boolean {
  return totpMatchStep(secret, code, at) !== null;
}

export function otpauthUri(secret: string, account: string): string {
  return `otpauth://totp/${encodeURIComponent(`Caja:${account}`)}?secret=${secret}&issuer=Caja&algorithm=SHA1&digits=6&period=30`;
}
