// Secrets at rest: signature secrets are encrypted (they must be read back to verify HMACs);
// trans keys, passwords and API keys are kept only as keyed hashes. Both keys derive from the
// master key so one value in the environment protects everything.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomInt, scryptSync, timingSafeEqual } from 'node:crypto';

export interface SecretBox {
  /**
   * With `context` (who owns the secret, e.g. credentialContext(7, 'deposits')) the owner is bound
   * as associated data (v2): the sealed value copied to another row does not decrypt.
   */
  encrypt(plain: string, context?: string): string;
  /** A v2 value needs its context; a context refuses an unbound v1 value (re-encrypted at start). */
  decrypt(sealed: string, context?: string): string;
  /** Deterministic keyed hash: lets a high-entropy key be looked up and compared without storing it. */
  hash(value: string): string;
  verifyHash(value: string, expected: string): boolean;
}

export function secretBox(masterKey: Buffer): SecretBox {
  const encKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'caja secrets v1', 32));
  const hashKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'caja hashes v1', 32));
  const hash = (value: string) => createHmac('sha256', hashKey).update(value, 'utf8').digest('hex');
  return {
    encrypt(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${context !== undefined ? 'v2' : 'v1'}.${iv.toString('base64url')}.${data.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
    },
    decrypt(sealed, context) {
      const [version, iv, data, tag] = sealed.split('.');
      if ((version !== 'v1' && version !== 'v2') || !iv || data === undefined || !tag) throw new Error('unreadable sealed secret');
      if ((version === 'v2') !== (context !== undefined)) throw new Error(version === 'v2' ? 'sealed secret needs its owner' : 'sealed secret is not bound to its owner');
      const decipher = createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64url'));
      if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
    hash,
    verifyHash(value, expected) {
      return safeEqualText(hash(value), expected);
    },
  };
}

/** The owner a credential set's secret is bound to: its merchant and its set. */
export function credentialContext(merchantId: number, set: string): string {
  return `credentials:${merchantId}:${set}`;
}

/** Constant-time comparison of two strings (length is not secret). */
export function safeEqualText(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

const ALPHANUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

export function randomToken(length: number, alphabet = ALPHANUM): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** Panel passwords may one day be chosen by people, so they get a slow hash. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32);
  return `scrypt.${salt.toString('base64url')}.${key.toString('base64url')}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const [scheme, salt, key] = stored.split('.');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = scryptSync(password, Buffer.from(salt, 'base64url'), expected.length);
  return timingSafeEqual(actual, expected);
}
