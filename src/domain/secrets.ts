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

/**
 * scrypt's work factor for new password hashes, as log2 of N: 14 (N = 16384, 16 MiB: node's
 * default, and what every hash made before the setting existed used) unless
 * CAJA_PASSWORD_HASH_COST says otherwise (config.ts; production refuses less than 14). Each hash
 * names its own factor, so changing the setting leaves the hashes already stored valid.
 */
export const DEFAULT_PASSWORD_COST = 14;
export const PASSWORD_COST_RANGE = { min: 10, max: 17 } as const;
let passwordCost: number = DEFAULT_PASSWORD_COST;

/** The factor of the hashes made from now on in this process (openContext sets the configured one). */
export function setPasswordCost(cost: number): void {
  if (!Number.isInteger(cost) || cost < PASSWORD_COST_RANGE.min || cost > PASSWORD_COST_RANGE.max) throw new RangeError(`password hash cost ${cost}`);
  passwordCost = cost;
}

function scryptKey(password: string, salt: Buffer, cost: number, length: number): Buffer {
  const N = 2 ** cost;
  // scrypt uses 128 × N × r bytes (r = 8); node refuses more than 32 MiB unless allowed.
  return scryptSync(password, salt, length, { N, r: 8, p: 1, maxmem: 256 * N * 8 });
}

/** "scrypt" is factor 14 (the hashes made before factors were named); "scryptNN" is factor NN. */
function costOfScheme(scheme: string | undefined): number | null {
  if (scheme === 'scrypt') return DEFAULT_PASSWORD_COST;
  const m = /^scrypt(\d\d)$/.exec(scheme ?? '');
  const cost = m ? Number(m[1]) : NaN;
  return cost >= PASSWORD_COST_RANGE.min && cost <= PASSWORD_COST_RANGE.max ? cost : null;
}

/** Panel passwords may one day be chosen by people, so they get a slow hash. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const key = scryptKey(password, salt, passwordCost, 32);
  const scheme = passwordCost === DEFAULT_PASSWORD_COST ? 'scrypt' : `scrypt${passwordCost}`;
  return `${scheme}.${salt.toString('base64url')}.${key.toString('base64url')}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const [scheme, salt, key] = stored.split('.');
  const cost = costOfScheme(scheme);
  if (cost === null || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = scryptKey(password, Buffer.from(salt, 'base64url'), cost, expected.length);
  return timingSafeEqual(actual, expected);
}

const dummies = new Map<number, string>();

/**
 * What a sign-in with an unknown e-mail is checked against, so that it costs the same time as a
 * wrong password: a hash of a random password nobody kept, at the current factor. Made on first
 * use (the server makes it at start: buildApp), not at import, which cost every process loading
 * this module (each CLI command, each test file) a hash.
 */
export function dummyPasswordHash(): string {
  let h = dummies.get(passwordCost);
  if (!h) dummies.set(passwordCost, (h = hashPassword(randomToken(20))));
  return h;
}
