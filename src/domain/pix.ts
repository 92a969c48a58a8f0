// Pix BR Code ("copia e cola"): the EMV® QRCPS merchant-presented payload as profiled
// by the Banco Central do Brasil, static form (key + amount + txid, no payload URL).
// Each field is a TLV: 2-digit ID, 2-digit length, value. Field 63 is a CRC over
// everything before its value, so it is always last.

import { getPixKeyInfo } from '@brazilian-utils/brazilian-utils';
import { parseAmount, toFixed } from './money.ts';

export const PIX_GUI = 'br.gov.bcb.pix';

export interface PixBrCodeInput {
  key: string;
  merchantName: string;
  merchantCity: string;
  /** Decimal string ("10.50"); omitted means the payer types the amount. */
  amount?: string;
  /** Up to 25 letters/digits; "***" (the BR Code's "no txid") when omitted. */
  txid?: string;
  description?: string;
}

export interface Tlv {
  id: string;
  value: string;
}

/** CRC-16/CCITT-FALSE of every byte value, so the checksum takes one step a byte, not eight. */
const CRC16_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xor-out), 4 upper-case hex. */
export function crc16CcittFalse(text: string): string {
  let crc = 0xffff;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A BR Code is ASCII (name and city are folded), read as its characters; anything else as its UTF-8 bytes.
    if (c > 0x7f) return crc16OfBytes(Buffer.from(text, 'utf8'));
    crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[(crc >>> 8) ^ c]!;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function crc16OfBytes(bytes: Uint8Array): string {
  let crc = 0xffff;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[(crc >>> 8) ^ bytes[i]!]!;
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function tlv(id: string, value: string): string {
  if (value.length > 99) throw new RangeError(`BR Code field ${id} longer than 99 characters`);
  return id + String(value.length).padStart(2, '0') + value;
}

/**
 * Payment apps reject or mangle non-ASCII in name/city, and lengths are counted in
 * characters, so accents are stripped ("São Paulo" → "Sao Paulo") and anything still
 * outside printable ASCII is dropped before truncating.
 */
export function asciiFold(text: string, maxLength: number): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, maxLength)
    .trim();
}

/** The fields a BR Code takes from its payee: before the amount (00, 26, 52, 53) and after it (58, 59, 60). */
interface Payee {
  head: string;
  tail: string;
}

/**
 * Payees worked out once (the key classified, name and city folded): staging builds every BR
 * Code for one payee, and the key's check digits and two Unicode normalisations were most of a
 * code's cost. Bounded: cleared when full.
 */
const payees = new Map<string, Payee>();
const PAYEES_KEPT = 64;

function payeeOf(input: PixBrCodeInput): Payee {
  const id = `${input.key}\0${input.merchantName}\0${input.merchantCity}\0${input.description ?? ''}`;
  const known = payees.get(id);
  if (known) return known;
  // Building only needs the key's shape; the payer's bank resolves it, so any UUID
  // version is let through here (the BCB manual's own sample key is not v4).
  const key = classifyPixKey(input.key, { anyUuidVersion: true });
  if (!key.ok) throw new Error(`invalid Pix key: ${key.reason}`);

  const name = asciiFold(input.merchantName, 25);
  const city = asciiFold(input.merchantCity, 15);
  if (!name) throw new Error('merchant name is empty');
  if (!city) throw new Error('merchant city is empty');

  let account = tlv('00', PIX_GUI) + tlv('01', key.normalized);
  if (input.description) {
    // Field 26 is capped at 99 characters, so the description gets what is left.
    const room = 99 - account.length - 4;
    const description = asciiFold(input.description, room);
    if (description) account += tlv('02', description);
  }
  const payee = { head: tlv('00', '01') + tlv('26', account) + tlv('52', '0000') + tlv('53', '986'), tail: tlv('58', 'BR') + tlv('59', name) + tlv('60', city) };
  if (payees.size >= PAYEES_KEPT) payees.clear();
  payees.set(id, payee);
  return payee;
}

/** Builds the payload; throws on input that cannot make a valid code (bad key, amount, txid). */
export function buildPixBrCode(input: PixBrCodeInput): string {
  const payee = payeeOf(input);

  const txid = input.txid ?? '***';
  if (txid !== '***' && !/^[A-Za-z0-9]{1,25}$/.test(txid)) {
    throw new Error('txid must be 1 to 25 letters or digits');
  }

  let payload = payee.head;
  if (input.amount !== undefined) {
    // Field 54 holds at most 13 characters: 10 integer digits, ".", 2 decimals.
    const amount = parseAmount(input.amount, { maxIntegerDigits: 10, maxDecimals: 2 });
    if (!amount.ok) throw new Error(`amount ${amount.reason}`);
    payload += tlv('54', toFixed(amount.value, 2));
  }
  payload += payee.tail + tlv('62', tlv('05', txid));
  payload += '6304';
  return payload + crc16CcittFalse(payload);
}

/** Splits a TLV string; throws when a length runs past the end or an ID is not 2 digits. */
export function splitTlv(text: string): Tlv[] {
  const out: Tlv[] = [];
  let i = 0;
  while (i < text.length) {
    const head = text.slice(i, i + 4);
    if (!/^\d{4}$/.test(head)) throw new Error(`malformed TLV at position ${i}`);
    const length = Number(head.slice(2));
    const value = text.slice(i + 4, i + 4 + length);
    if (value.length !== length) throw new Error(`TLV ${head.slice(0, 2)} runs past the end`);
    out.push({ id: head.slice(0, 2), value });
    i += 4 + length;
  }
  return out;
}

export function verifyPixCrc(code: string): boolean {
  const m = /^(.*6304)([0-9A-Fa-f]{4})$/s.exec(code);
  if (!m) return false;
  return crc16CcittFalse(m[1]!) === m[2]!.toUpperCase();
}

export interface ParsedPixBrCode {
  fields: Tlv[];
  key?: string;
  /** Payload URL of dynamic codes (field 26, sub-ID 25). */
  url?: string;
  description?: string;
  amount?: string;
  currency?: string;
  merchantName?: string;
  merchantCity?: string;
  txid?: string;
  crc: string;
}

export type ParsePixResult = { ok: true; value: ParsedPixBrCode } | { ok: false; reason: string };

export function parsePixBrCode(code: string): ParsePixResult {
  let fields: Tlv[];
  try {
    fields = splitTlv(code.trim());
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  const get = (id: string) => fields.find((f) => f.id === id)?.value;
  if (get('00') !== '01') return { ok: false, reason: 'payload format indicator must be 01' };
  const last = fields[fields.length - 1];
  if (!last || last.id !== '63' || last.value.length !== 4) {
    return { ok: false, reason: 'CRC field 63 must come last' };
  }
  if (!verifyPixCrc(code.trim())) return { ok: false, reason: 'CRC does not match' };

  // Merchant account info may sit in any template 26..51; the Pix one is found by its GUI.
  let account: Tlv[] | undefined;
  for (const f of fields) {
    const id = Number(f.id);
    if (id < 26 || id > 51) continue;
    try {
      const sub = splitTlv(f.value);
      if (sub.find((s) => s.id === '00')?.value.toLowerCase() === PIX_GUI) account = sub;
    } catch {
      return { ok: false, reason: `malformed template ${f.id}` };
    }
  }
  if (!account) return { ok: false, reason: `no ${PIX_GUI} merchant account information` };

  let txid: string | undefined;
  const additional = get('62');
  if (additional !== undefined) {
    try {
      txid = splitTlv(additional).find((s) => s.id === '05')?.value;
    } catch {
      return { ok: false, reason: 'malformed template 62' };
    }
  }

  const value: ParsedPixBrCode = { fields, crc: last.value.toUpperCase() };
  const put = <K extends keyof ParsedPixBrCode>(k: K, v: ParsedPixBrCode[K] | undefined) => {
    if (v !== undefined) value[k] = v;
  };
  put('key', account.find((s) => s.id === '01')?.value);
  put('description', account.find((s) => s.id === '02')?.value);
  put('url', account.find((s) => s.id === '25')?.value);
  put('amount', get('54'));
  put('currency', get('53'));
  put('merchantName', get('59'));
  put('merchantCity', get('60'));
  put('txid', txid);
  return { ok: true, value };
}

export type PixKeyType = 'CPF' | 'CNPJ' | 'EMAIL' | 'PHONE' | 'EVP';
export type PixKeyResult =
  | { ok: true; type: PixKeyType; normalized: string }
  | { ok: false; reason: string };

/** CPF mod-11 check; repeated-digit numbers pass the arithmetic but are never issued. */
export function isValidCpf(cpf: string): boolean {
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false;
  const d = [...cpf].map(Number);
  const check = (n: number) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[i]! * (n + 1 - i);
    return ((s * 10) % 11) % 10;
  };
  return check(9) === d[9] && check(10) === d[10];
}

/**
 * CNPJ mod-11 check. Characters count as (char code − 48), which is the classic rule
 * for digits and also covers the alphanumeric CNPJ the Receita Federal issues from 2026.
 */
export function isValidCnpj(cnpj: string): boolean {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false;
  const v = [...cnpj].map((c) => c.charCodeAt(0) - 48);
  const check = (n: number) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += v[i]! * (((n - 1 - i) % 8) + 2);
    const r = s % 11;
    return r < 2 ? 0 : 11 - r;
  };
  return check(12) === v[12] && check(13) === v[13];
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const UUID_ANY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Brazilian mobile numbers: +55, a 2-digit area code, then 9 digits starting with 9. */
const MOBILE = /^\+55[1-9]\d9\d{8}$/;

/**
 * Recognises a Pix key and returns it in the form the DICT stores: documents as bare
 * digits, e-mail lower-cased, phone as +55 followed by digits, EVP lower-cased. E-mail syntax
 * and mobile numbers are judged by @brazilian-utils (maintained against the BCB's DICT
 * manual); the DICT registers mobile numbers only, so a landline is not a key.
 */
export function classifyPixKey(raw: string, options: { anyUuidVersion?: boolean } = {}): PixKeyResult {
  if (typeof raw !== 'string') return { ok: false, reason: 'key must be a string' };
  const key = raw.trim();
  if (!key) return { ok: false, reason: 'key is empty' };

  if ((options.anyUuidVersion ? UUID_ANY : UUID_V4).test(key)) {
    return { ok: true, type: 'EVP', normalized: key.toLowerCase() };
  }
  if (key.includes('@')) {
    if (key.length > 77) return { ok: false, reason: 'e-mail key longer than 77 characters' };
    const info = getPixKeyInfo(key);
    if (info?.type !== 'email') return { ok: false, reason: 'invalid e-mail key' };
    return { ok: true, type: 'EMAIL', normalized: info.value };
  }
  if (key.startsWith('+')) {
    const phone = key.replace(/[\s().-]/g, '');
    if (!/^\+55\d{10,11}$/.test(phone)) return { ok: false, reason: 'phone key must be +55 followed by 10 or 11 digits' };
    const info = getPixKeyInfo(phone);
    if (info?.type !== 'phone' || !MOBILE.test(info.value)) {
      return { ok: false, reason: 'phone key must be a Brazilian mobile number (+55, area code, 9 digits starting with 9)' };
    }
    return { ok: true, type: 'PHONE', normalized: info.value };
  }
  // Documents are often pasted with their usual punctuation (123.456.789-09, 12.345.678/0001-95).
  const doc = /^[0-9A-Za-z./\s-]+$/.test(key) ? key.replace(/[./\s-]/g, '').toUpperCase() : '';
  if (doc.length === 11 && /^\d+$/.test(doc)) {
    return isValidCpf(doc) ? { ok: true, type: 'CPF', normalized: doc } : { ok: false, reason: 'invalid CPF check digits' };
  }
  if (doc.length === 14) {
    return isValidCnpj(doc) ? { ok: true, type: 'CNPJ', normalized: doc } : { ok: false, reason: 'invalid CNPJ check digits' };
  }
  if (UUID_ANY.test(key)) return { ok: false, reason: 'random key must be a version 4 UUID' };
  return { ok: false, reason: 'not a CPF, CNPJ, e-mail, phone or random key' };
}
