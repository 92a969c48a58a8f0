// Identifiers caja sends to a provider (STP claveRastreo, Pix txid, devolução ids, Efí idEnvio,
// every future send id) and account numbers it hands out must stay unique after the database is
// restored to any earlier point and across installations sharing a master key. So they are never
// derived only from a row's serial id or the master key: each is drawn at random here, stored
// with its row before its first use, and a resend reads it back from the row.
import { randomInt } from 'node:crypto';

export const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER_ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const DIGITS = '0123456789';

/**
 * A fresh random reference: `prefix` then `length - prefix.length` characters drawn uniformly from
 * `alphabet` with the CSPRNG. With 62 symbols, 20 random characters carry 119 bits: two draws
 * never meet in practice, whatever was restored.
 */
export function newReference(prefix: string, length: number, alphabet: string = ALPHANUMERIC): string {
  const n = length - prefix.length;
  if (n < 1) throw new RangeError('newReference: the prefix leaves no room for randomness');
  let out = prefix;
  for (let i = 0; i < n; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}
