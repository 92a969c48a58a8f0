// The operator's markup on a source's rate: usd_rate = source rate × (1 + markup / 100), rounded
// once, half-up, to the 8 decimals exchange_rates keeps. Pure.
import { add, cmp, dec, type Decimal, multiplyRate, parseAmount } from '../domain/money.ts';

export const MAX_MARKUP_PERCENT = 50;

export function applyMarkup(rate: Decimal, markupPercent: Decimal): Decimal {
  const factor = add(dec('100'), markupPercent);
  // rate × (100 + m) / 100: the division by 100 is a shift of the scale, so exact before the one rounding.
  const product = { units: rate.units * factor.units, scale: rate.scale + factor.scale + 2 };
  return multiplyRate(product, dec('1'), 8);
}

/** A markup as typed by an operator ("0.5", "-0.25"), or what is wrong with it. */
export function parseMarkup(input: unknown): { ok: true; value: Decimal } | { ok: false; reason: string } {
  const p = parseAmount(typeof input === 'string' ? input.trim() : input, { maxDecimals: 4, maxIntegerDigits: 2, allowNegative: true, allowZero: true });
  if (!p.ok) return { ok: false, reason: 'must be a percentage with at most 4 decimals, e.g. 0.5' };
  const limit = dec(String(MAX_MARKUP_PERCENT));
  if (cmp(p.value, limit) >= 0 || cmp(p.value, dec(`-${MAX_MARKUP_PERCENT}`)) <= 0) {
    return { ok: false, reason: `must be greater than -${MAX_MARKUP_PERCENT} and less than ${MAX_MARKUP_PERCENT}` };
  }
  return { ok: true, value: p.value };
}
