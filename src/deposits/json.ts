// JSON writing that keeps amounts exact: a Decimal is written as a JSON number with exactly its
// digits (an 18-digit amount with cents would lose digits as a double), and a RawJson value is
// spliced in as already-written JSON (a stored payment_info).
import { type Decimal, toPlainString } from '../domain/money.ts';

export class RawJson {
  constructor(readonly text: string) {}
}

function isDecimal(v: unknown): v is Decimal {
  return typeof v === 'object' && v !== null && typeof (v as Decimal).units === 'bigint' && typeof (v as Decimal).scale === 'number';
}

/** Like JSON.stringify (undefined members dropped), with Decimal and RawJson support. */
export function toJson(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof RawJson) return value.text;
  if (isDecimal(value)) return toPlainString(value);
  if (value instanceof Date) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : toJson(v))).join(',')}]`;
  if (typeof value === 'object') {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      parts.push(`${JSON.stringify(k)}:${toJson(v)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value);
}
