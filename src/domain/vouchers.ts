// Cash voucher references: the Brazilian boleto (FEBRABAN layout) and a generic
// numeric reference with a Luhn check digit for OXXO / Efecty / PagoEfectivo /
// Rapipago-style vouchers.

import { parseAmount } from './money.ts';

// ---------------------------------------------------------------------------
// Shared digit checks

/** Luhn check digit for a digit string (the digit that would be appended). */
export function luhnCheckDigit(body: string): number {
  if (!/^\d+$/.test(body)) throw new Error('Luhn needs digits');
  let sum = 0;
  // The rightmost body digit is doubled, since the check digit will sit to its right.
  for (let i = body.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = Number(body[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

export function isValidLuhn(digits: string): boolean {
  return /^\d{2,}$/.test(digits) && luhnCheckDigit(digits.slice(0, -1)) === Number(digits.at(-1));
}

/** FEBRABAN "módulo 10" used in the digitable line fields: the same arithmetic as Luhn. */
const boletoMod10 = luhnCheckDigit;

/** FEBRABAN "módulo 11" for the barcode's general check digit (DAC). */
export function boletoMod11(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const dv = 11 - (sum % 11);
  // 0 is never used as the DAC, and 10/11 do not fit one digit; all three become 1.
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

// ---------------------------------------------------------------------------
// Dates

const DAY_MS = 86_400_000;

/** Calendar date (YYYY-MM-DD) of an instant in a time zone, or a YYYY-MM-DD string as is. */
export function calendarDate(date: Date | string, timeZone: string): string {
  if (typeof date === 'string') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
      throw new Error(`invalid date ${date}`);
    }
    return date;
  }
  if (Number.isNaN(date.getTime())) throw new Error('invalid date');
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

function daysFrom(base: string, date: string): number {
  return Math.round((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${base}T00:00:00Z`)) / DAY_MS);
}

// ---------------------------------------------------------------------------
// Boleto

const FACTOR_BASE = '1997-10-07';

/**
 * Due factor: days since 1997-10-07, kept in 4 digits. FEBRABAN restarts the count at
 * 1000 once 9999 is reached, so 2025-02-21 is 9999 and 2025-02-22 is 1000 again (each
 * cycle is 9000 days). Dates before 2000-07-03 (factor 1000) are refused: no boleto
 * is issued for them any more. Due dates are Brazilian calendar dates, hence São Paulo time.
 */
export function boletoDueFactor(dueDate: Date | string): number {
  const days = daysFrom(FACTOR_BASE, calendarDate(dueDate, 'America/Sao_Paulo'));
  if (days < 1000) throw new Error('boleto due date before 2000-07-03');
  return ((days - 1000) % 9000) + 1000;
}

/**
 * The date a factor stands for. A factor repeats every 9000 days, so the cycle whose
 * date lies nearest to the reference (usually "now" or the issue date) is taken.
 */
export function boletoDateFromFactor(factor: number, reference: Date | string = new Date()): string | null {
  if (factor === 0) return null;
  if (!Number.isInteger(factor) || factor < 1000 || factor > 9999) throw new Error(`invalid due factor ${factor}`);
  const refDays = daysFrom(FACTOR_BASE, calendarDate(reference, 'America/Sao_Paulo'));
  const cycle = Math.max(0, Math.round((refDays - factor) / 9000));
  const days = factor + cycle * 9000;
  return new Date(Date.parse(`${FACTOR_BASE}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export interface BoletoInput {
  /** 3-digit COMPE bank code. */
  bankCode: string;
  /** null: no due date (factor 0000). */
  dueDate: Date | string | null;
  /** Decimal string; the barcode holds at most 99999999.99. */
  amount: string;
  /** The 25 digits the issuing bank defines (agreement, our number, agency…). */
  freeField25: string;
}

export interface Boleto {
  /** 44 digits, what the printed ITF barcode encodes. */
  barCode: string;
  /** 47 digits, the line a payer types in. */
  digitableLine: string;
  /** The same with the customary separators: "AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE". */
  digitableLineFormatted: string;
}

export function buildBoleto(input: BoletoInput): Boleto {
  if (!/^\d{3}$/.test(input.bankCode)) throw new Error('bank code must be 3 digits');
  if (!/^\d{25}$/.test(input.freeField25)) throw new Error('free field must be 25 digits');
  const amount = parseAmount(input.amount, { maxIntegerDigits: 8, maxDecimals: 2, allowZero: true });
  if (!amount.ok) throw new Error(`amount ${amount.reason}`);
  const factor = input.dueDate === null ? 0 : boletoDueFactor(input.dueDate);

  const withoutDac =
    input.bankCode + '9' + String(factor).padStart(4, '0') + amount.value.units.toString().padStart(10, '0') + input.freeField25;
  const dac = boletoMod11(withoutDac);
  const barCode = withoutDac.slice(0, 4) + dac + withoutDac.slice(4);
  const digitableLine = digitableLineFromBarcode(barCode);
  return { barCode, digitableLine, digitableLineFormatted: formatDigitableLine(digitableLine) };
}

export function isValidBoletoBarcode(barCode: string): boolean {
  if (!/^\d{44}$/.test(barCode)) return false;
  return boletoMod11(barCode.slice(0, 4) + barCode.slice(5)) === Number(barCode[4]);
}

/** Rearranges a barcode into the 47-digit line, adding the three field check digits. */
export function digitableLineFromBarcode(barCode: string): string {
  if (!/^\d{44}$/.test(barCode)) throw new Error('boleto barcode must be 44 digits');
  const field1 = barCode.slice(0, 4) + barCode.slice(19, 24);
  const field2 = barCode.slice(24, 34);
  const field3 = barCode.slice(34, 44);
  return (
    field1 + boletoMod10(field1) +
    field2 + boletoMod10(field2) +
    field3 + boletoMod10(field3) +
    barCode[4] + barCode.slice(5, 19)
  );
}

export function formatDigitableLine(line: string): string {
  if (!/^\d{47}$/.test(line)) throw new Error('digitable line must be 47 digits');
  return `${line.slice(0, 5)}.${line.slice(5, 10)} ${line.slice(10, 15)}.${line.slice(15, 21)} ${line.slice(21, 26)}.${line.slice(26, 32)} ${line[32]} ${line.slice(33)}`;
}

export type BoletoLineResult = { ok: true; barCode: string } | { ok: false; reason: string };

/** Accepts the line with or without separators; every check digit must hold. */
export function boletoFromDigitableLine(line: string): BoletoLineResult {
  const digits = line.replace(/[\s.]/g, '');
  if (!/^\d{47}$/.test(digits)) return { ok: false, reason: 'digitable line must be 47 digits' };
  const fields: Array<[string, string]> = [
    [digits.slice(0, 9), digits[9]!],
    [digits.slice(10, 20), digits[20]!],
    [digits.slice(21, 31), digits[31]!],
  ];
  for (const [i, [body, dv]] of fields.entries()) {
    if (boletoMod10(body) !== Number(dv)) return { ok: false, reason: `check digit of field ${i + 1} does not match` };
  }
  const barCode = digits.slice(0, 4) + digits[32] + digits.slice(33) + digits.slice(4, 9) + digits.slice(10, 20) + digits.slice(21, 31);
  if (!isValidBoletoBarcode(barCode)) return { ok: false, reason: 'general check digit does not match' };
  return { ok: true, barCode };
}

export interface BoletoParts {
  bankCode: string;
  currency: string;
  dueFactor: number;
  /** Decimal string with 2 decimals; "0.00" means the amount is filled in at payment. */
  amount: string;
  freeField: string;
}

export function parseBoletoBarcode(barCode: string): BoletoParts | null {
  if (!isValidBoletoBarcode(barCode)) return null;
  const cents = barCode.slice(9, 19).replace(/^0+(?=\d{3})/, '');
  return {
    bankCode: barCode.slice(0, 3),
    currency: barCode[3]!,
    dueFactor: Number(barCode.slice(5, 9)),
    amount: `${cents.slice(0, -2)}.${cents.slice(-2)}`,
    freeField: barCode.slice(19),
  };
}

// ---------------------------------------------------------------------------
// Generic numeric references (OXXO, Efecty, PagoEfectivo, Rapipago style)

/**
 * Reference = prefix + body left-padded with zeros + one Luhn check digit, `length`
 * digits in all. The prefix identifies the collector/agreement at the cash network;
 * the body is our own counter or deposit id. The check digit lets the cashier's
 * terminal catch a mistyped reference before it reaches us.
 */
export function buildNumericReference(prefix: string, body: string | number | bigint, length: number): string {
  const bodyText = String(body);
  if (!/^\d*$/.test(prefix)) throw new Error('reference prefix must be digits');
  if (!/^\d+$/.test(bodyText)) throw new Error('reference body must be digits');
  const room = length - prefix.length - 1;
  if (!Number.isInteger(length) || room < 1) throw new Error('reference length too short for the prefix');
  if (bodyText.length > room) throw new Error(`reference body longer than ${room} digits`);
  const withoutCheck = prefix + bodyText.padStart(room, '0');
  return withoutCheck + luhnCheckDigit(withoutCheck);
}

export function isValidNumericReference(reference: string, expect: { length?: number; prefix?: string } = {}): boolean {
  if (expect.length !== undefined && reference.length !== expect.length) return false;
  if (expect.prefix !== undefined && !reference.startsWith(expect.prefix)) return false;
  return isValidLuhn(reference);
}

export interface VoucherBarcodeInput {
  /** A reference from buildNumericReference (any digit string works). */
  reference: string;
  /** Decimal string, at most 99999999.99. */
  amount: string;
  dueDate: Date | string;
  /** Time zone whose calendar date is printed; the voucher country's. */
  timeZone?: string;
}

/**
 * bar_code for cash vouchers: digits only, even length, so Code 128 can print it in
 * code set C (two digits per symbol), which keeps the printed barcode short.
 *
 *   [0?] reference | amount in cents (10 digits) | due date YYMMDD | Luhn check digit
 *
 * A single leading "0" is added when needed to make the length even; Luhn is
 * unaffected by leading zeros, so the whole string validates either way.
 */
export function buildVoucherBarcode(input: VoucherBarcodeInput): string {
  if (!/^\d+$/.test(input.reference)) throw new Error('reference must be digits');
  const amount = parseAmount(input.amount, { maxIntegerDigits: 8, maxDecimals: 2 });
  if (!amount.ok) throw new Error(`amount ${amount.reason}`);
  const date = calendarDate(input.dueDate, input.timeZone ?? 'UTC');
  const yymmdd = date.slice(2, 4) + date.slice(5, 7) + date.slice(8, 10);
  const body = input.reference + amount.value.units.toString().padStart(10, '0') + yymmdd;
  const code = body + luhnCheckDigit(body);
  return code.length % 2 === 0 ? code : `0${code}`;
}

export function isValidVoucherBarcode(code: string): boolean {
  return /^\d+$/.test(code) && code.length % 2 === 0 && code.length >= 18 && isValidLuhn(code);
}

/** Reads the fixed tail of a voucher barcode; the reference may keep one leading pad zero. */
export function parseVoucherBarcode(code: string): { reference: string; amount: string; dueDate: string } | null {
  if (!isValidVoucherBarcode(code)) return null;
  const tail = code.slice(-17, -1);
  const cents = tail.slice(0, 10).replace(/^0+(?=\d{3})/, '');
  const yymmdd = tail.slice(10);
  return {
    reference: code.slice(0, -17),
    amount: `${cents.slice(0, -2)}.${cents.slice(-2)}`,
    dueDate: `20${yymmdd.slice(0, 2)}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`,
  };
}
