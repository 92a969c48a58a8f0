// Exact decimal money. Amounts travel as strings and bigints end to end so that
// 18-digit values with cents (beyond 2^53) survive without float rounding.

export interface Decimal {
  /** The value times 10^scale. */
  readonly units: bigint;
  /** Number of digits after the decimal point; never negative. */
  readonly scale: number;
}

export type Rounding = 'half-up' | 'half-even' | 'down' | 'up' | 'floor' | 'ceil';

export type ParseResult = { ok: true; value: Decimal } | { ok: false; reason: string };

export interface ParseOptions {
  maxIntegerDigits?: number;
  maxDecimals?: number;
  /** Negative values are refused unless set (refund deltas, balance adjustments). */
  allowNegative?: boolean;
  /** Zero is refused unless set, because most amounts the API accepts must be positive. */
  allowZero?: boolean;
}

const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Validates an amount from a request. Strings must be plain decimals ("10", "10.5",
 * "0.01"): no exponent, no "+", no surrounding spaces, no ".5" or "5." — clients that
 * send those are sending something we would otherwise have to guess about.
 * Numbers are taken by their shortest round-trip string, so 10.1 means "10.1".
 * The result is at scale maxDecimals, so equal amounts compare equal field by field.
 */
export function parseAmount(input: unknown, options: ParseOptions = {}): ParseResult {
  const maxIntegerDigits = options.maxIntegerDigits ?? 18;
  const maxDecimals = options.maxDecimals ?? 2;
  const formatReason = `must be a decimal number with at most ${maxDecimals} decimals`;

  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, reason: formatReason };
    // Object.is catches -0, whose String() loses the sign; it is zero either way.
    text = Object.is(input, -0) ? '0' : String(input);
  } else {
    return { ok: false, reason: formatReason };
  }

  const m = PLAIN.exec(text);
  if (!m) return { ok: false, reason: formatReason };
  const [, sign, intPart, fracPart = ''] = m;
  if (fracPart.length > maxDecimals) return { ok: false, reason: formatReason };
  const significant = intPart!.replace(/^0+/, '');
  if (significant.length > maxIntegerDigits) {
    return { ok: false, reason: `must have at most ${maxIntegerDigits} integer digits` };
  }

  let units = BigInt(intPart! + fracPart.padEnd(maxDecimals, '0'));
  if (sign === '-') units = -units;
  if (units < 0n && !options.allowNegative) {
    return { ok: false, reason: options.allowZero ? 'must not be negative' : 'must be greater than 0' };
  }
  if (units === 0n && !options.allowZero && !options.allowNegative) {
    return { ok: false, reason: 'must be greater than 0' };
  }
  return { ok: true, value: { units, scale: maxDecimals } };
}

/** Parses a plain decimal literal written in code or config; throws on anything else. */
export function dec(text: string): Decimal {
  const m = PLAIN.exec(text);
  if (!m) throw new SyntaxError(`not a plain decimal: ${JSON.stringify(text)}`);
  const [, sign, intPart, fracPart = ''] = m;
  const units = BigInt(intPart! + fracPart);
  return { units: sign === '-' ? -units : units, scale: fracPart.length };
}

/**
 * Reads a Postgres numeric in its text form. The database is trusted, so malformed
 * text (or NaN/Infinity, which money columns never hold) is a bug and throws.
 */
export function fromDb(text: string): Decimal {
  return dec(text.trim());
}

/** Text for a Postgres numeric parameter; keeps the scale so "10.50" stays "10.50". */
export function toDb(d: Decimal): string {
  return formatUnits(d.units, d.scale);
}

const pow10Cache: bigint[] = [];
function pow10(n: number): bigint {
  return (pow10Cache[n] ??= 10n ** BigInt(n));
}

function formatUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const body = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${body}` : body;
}

/** Integer division n/d rounded per mode; d must not be zero. */
function divRound(n: bigint, d: bigint, rounding: Rounding): bigint {
  if (d === 0n) throw new RangeError('division by zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d; // truncates toward zero
  const r = n % d;
  if (r === 0n) return q;
  const positive = n > 0n;
  const awayFromZero = positive ? q + 1n : q - 1n;
  const twiceR = (r < 0n ? -r : r) * 2n;
  switch (rounding) {
    case 'down':
      return q;
    case 'up':
      return awayFromZero;
    case 'floor':
      return positive ? q : q - 1n;
    case 'ceil':
      return positive ? q + 1n : q;
    case 'half-up':
      return twiceR >= d ? awayFromZero : q;
    case 'half-even':
      if (twiceR > d) return awayFromZero;
      if (twiceR < d) return q;
      return q % 2n === 0n ? q : awayFromZero;
  }
}

/** Changes the scale, rounding when digits are dropped. */
export function rescale(d: Decimal, scale: number, rounding: Rounding = 'half-up'): Decimal {
  if (!Number.isInteger(scale) || scale < 0) throw new RangeError(`invalid scale ${scale}`);
  if (scale === d.scale) return d;
  if (scale > d.scale) return { units: d.units * pow10(scale - d.scale), scale };
  return { units: divRound(d.units, pow10(d.scale - scale), rounding), scale };
}

/** Fixed-point text such as "10.50"; rounds when decimals is below the value's scale. */
export function toFixed(d: Decimal, decimals: number, rounding: Rounding = 'half-up'): string {
  const r = rescale(d, decimals, rounding);
  return formatUnits(r.units, r.scale);
}

/** Shortest exact text: trailing fractional zeros dropped ("10.50" → "10.5", "3.00" → "3"). */
export function toPlainString(d: Decimal): string {
  const s = formatUnits(d.units, d.scale);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [rescale(a, scale).units, rescale(b, scale).units, scale];
}

export function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { units: x + y, scale };
}

export function sub(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { units: x - y, scale };
}

export function neg(d: Decimal): Decimal {
  return { units: -d.units, scale: d.scale };
}

export function sum(values: Iterable<Decimal>, scale = 2): Decimal {
  let total: Decimal = { units: 0n, scale };
  for (const v of values) total = add(total, v);
  return total;
}

/** -1, 0 or 1; scale does not matter ("10.5" equals "10.50"). */
export function cmp(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function eq(a: Decimal, b: Decimal): boolean {
  return cmp(a, b) === 0;
}

export function min(a: Decimal, b: Decimal): Decimal {
  return cmp(a, b) <= 0 ? a : b;
}

export function max(a: Decimal, b: Decimal): Decimal {
  return cmp(a, b) >= 0 ? a : b;
}

export function isZero(d: Decimal): boolean {
  return d.units === 0n;
}

export function isPositive(d: Decimal): boolean {
  return d.units > 0n;
}

function rateOf(rate: string | Decimal): Decimal {
  const r = typeof rate === 'string' ? dec(rate) : rate;
  if (r.units <= 0n) throw new RangeError('rate must be positive');
  return r;
}

/**
 * amount × rate, rounded once at the end. Exchange rates carry more decimals than
 * money ("5.432100"), and rounding only the final product keeps conversions reproducible.
 */
export function multiplyRate(
  amount: Decimal,
  rate: string | Decimal,
  outScale: number,
  rounding: Rounding = 'half-up',
): Decimal {
  const r = rateOf(rate);
  return rescale({ units: amount.units * r.units, scale: amount.scale + r.scale }, outScale, rounding);
}

/** amount ÷ rate (e.g. local currency back to USD), rounded once to outScale. */
export function divideRate(
  amount: Decimal,
  rate: string | Decimal,
  outScale: number,
  rounding: Rounding = 'half-up',
): Decimal {
  const r = rateOf(rate);
  // amount/rate = (a.units / 10^a.scale) / (r.units / 10^r.scale); bring the
  // numerator to outScale before the single rounded division.
  const shift = outScale + r.scale - amount.scale;
  const numerator = shift >= 0 ? amount.units * pow10(shift) : amount.units;
  const denominator = shift >= 0 ? r.units : r.units * pow10(-shift);
  return { units: divRound(numerator, denominator, rounding), scale: outScale };
}

/** percent% of amount (fees, relative bonuses), at the amount's scale unless told. */
export function percentOf(
  amount: Decimal,
  percent: string | Decimal,
  outScale: number = amount.scale,
  rounding: Rounding = 'half-up',
): Decimal {
  const p = typeof percent === 'string' ? dec(percent) : percent;
  const product = amount.units * p.units;
  const scale = amount.scale + p.scale + 2; // the +2 is the division by 100
  return rescale({ units: product, scale }, outScale, rounding);
}

/**
 * A JS number for response fields typed number, or null when the double nearest to
 * the value is not the value itself (such amounts must go out as strings or through a
 * lossless serializer instead of being silently altered).
 */
export function toJsonNumber(d: Decimal): number | null {
  const text = toPlainString(d);
  const n = Number(text);
  if (!Number.isFinite(n)) return null;
  // String(n) is the shortest text that reads back as n; if it differs from our exact
  // text, n is some other value (or would print in exponent form, which we also avoid).
  return (Object.is(n, -0) ? '0' : String(n)) === text ? n : null;
}
