// ISO 4217 minor units, read from the maintained `currency-codes` list rather than typed by hand:
// CLP, PYG, XAF, UGX, VND have none; most currencies have two.
//
// The one rounding rule for money caja computes (conversions, ledger amounts): round once, at the
// end, to the currency's minor unit, half away from zero ("half-up"). Amounts a client sends are
// never rounded: they are refused when they carry more decimals than the currency has.
import currencyCodes from 'currency-codes';
import { type Decimal, rescale, toFixed } from './money.ts';

const cache = new Map<string, number>();

/** Digits after the decimal point in `currency`; 2 for a code the list does not know. */
export function minorUnits(currency: string): number {
  let digits = cache.get(currency);
  if (digits === undefined) {
    digits = currencyCodes.code(currency)?.digits ?? 2;
    cache.set(currency, digits);
  }
  return digits;
}

/** `amount` written with exactly the currency's minor-unit digits ("12571" CLP, "10.50" BRL). */
export function formatMinor(amount: Decimal, currency: string): string {
  return toFixed(amount, minorUnits(currency));
}

/** `amount` at the currency's minor unit, rounded half-up when digits are dropped. */
export function roundToMinor(amount: Decimal, currency: string): Decimal {
  return rescale(amount, minorUnits(currency), 'half-up');
}
