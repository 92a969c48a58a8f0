// What a merchant's settlement balance gains or loses, in its settlement currency (USD unless
// configured), from a completed deposit and a refund. Pure: rates and amounts come in.
//
// Rule (one for all): figures are taken in the currency the deposit already fixed them in — the
// USD equivalent at the deposit's creation rate when the merchant settles in USD, the local
// amounts when it settles in the deposit's local currency — and, for any other settlement
// currency, converted from those USD figures at the rate given. Every figure is rounded once,
// half-up, to the settlement currency's minor unit (currencies.ts); the net is gross minus fees,
// so the parts always add up exactly.
import { minorUnits, roundToMinor } from './currencies.ts';
import { add, cmp, type Decimal, divideRate, eq, fromDb, isZero, multiplyRate, rescale, type Rounding, sub, toFixed } from './money.ts';

export interface DepositFigures {
  amount: string;
  usd_amount: string;
  merchant_usd: string;
  fee_usd: string;
  local_amount: string;
  local_currency: string;
  fee_local: string;
  surcharge_local: string;
  fee_on_payer: boolean;
  surcharge_on_payer: boolean;
}

export interface DepositCredit {
  currency: string;
  /** The deposit's value to the merchant before fees. */
  gross: Decimal;
  /** Fees and surcharges the merchant pays (taken from gross). */
  merchantFees: Decimal;
  /** gross − merchantFees: what available gains. */
  net: Decimal;
  /** The fee the payer paid on top (fee_on_payer): caja's revenue, not the merchant's. */
  payerFee: Decimal;
}

/**
 * The credit of a completed deposit in `currency`. `usdRate` (units of `currency` per USD) is
 * needed only when `currency` is neither USD nor the deposit's local currency.
 */
export function depositCredit(d: DepositFigures, currency: string, usdRate?: Decimal): DepositCredit {
  let gross: Decimal;
  let merchantFees: Decimal;
  let payerFee: Decimal;
  if (currency === 'USD') {
    gross = roundToMinor(fromDb(d.usd_amount), currency);
    merchantFees = roundToMinor(sub(fromDb(d.usd_amount), fromDb(d.merchant_usd)), currency);
    payerFee = d.fee_on_payer ? roundToMinor(fromDb(d.fee_usd), currency) : zero(currency);
  } else if (currency === d.local_currency) {
    gross = roundToMinor(fromDb(d.local_amount), currency);
    const fee = roundToMinor(fromDb(d.fee_local), currency);
    const surcharge = roundToMinor(fromDb(d.surcharge_local), currency);
    merchantFees = sumOf(currency, d.fee_on_payer ? null : fee, d.surcharge_on_payer ? null : surcharge);
    payerFee = d.fee_on_payer ? fee : zero(currency);
  } else {
    if (!usdRate) throw new RangeError(`a USD rate for ${currency} is needed`);
    const at = (usd: Decimal) => fromUsd(usd, usdRate, currency);
    gross = at(fromDb(d.usd_amount));
    merchantFees = at(sub(fromDb(d.usd_amount), fromDb(d.merchant_usd)));
    payerFee = d.fee_on_payer ? at(fromDb(d.fee_usd)) : zero(currency);
  }
  return { currency, gross, merchantFees, net: sub(gross, merchantFees), payerFee };
}

/**
 * What a refund takes back from the balance: its share of the deposit's gross credit, rounded
 * down so that partial refunds never add up to more than the credit; the refund that brings the
 * refunded total to the whole deposit takes exactly what is left of the credit.
 *
 * `refundedBefore` is the deposit amount held by the deposit's other PENDING and COMPLETED
 * refunds and `debitedBefore` what those took from the balance.
 */
export function refundDebit(
  refundAmount: Decimal,
  depositAmount: Decimal,
  grossCredit: Decimal,
  refundedBefore: Decimal,
  debitedBefore: Decimal,
): Decimal {
  const scale = grossCredit.scale;
  if (eq(sub(depositAmount, refundedBefore), refundAmount)) {
    const rest = sub(grossCredit, debitedBefore);
    return cmp(rest, { units: 0n, scale }) < 0 ? { units: 0n, scale } : rest;
  }
  const share = divideRate(multiplyRate(refundAmount, grossCredit, scale + 12), depositAmount, scale, 'down');
  return isZero(share) ? { units: 0n, scale } : share;
}

export interface PayoutFigures {
  /** What the beneficiary receives, in the country's currency. */
  local: Decimal;
  /** The payout's USD value (what limits and reports read). */
  usd: Decimal;
  /** What the merchant's balance gives, in its settlement currency: the reservation. */
  settlement: Decimal;
}

export type PayoutResult = { ok: true; value: PayoutFigures } | { ok: false; reason: string };

export interface PayoutRates {
  /** Units of the local currency per USD. */
  local: Decimal;
  /** Units of the settlement currency per USD; needed only when it is neither USD nor local. */
  settlement?: Decimal;
}

/**
 * A payout of `amount` in `currency` (USD or the country's `localCurrency`) in its three
 * figures. Each converted figure is rounded once, and never in the merchant's favour: what the
 * merchant's balance gives (settlement and USD) rounds up, what the beneficiary receives (local)
 * rounds down, so caja never pays out more than it reserved. A figure that is the requested one,
 * or the settlement currency being the local one, is taken as is (the reservation is then exactly
 * what the beneficiary receives). A payout worth less than one minor unit of the beneficiary's or
 * the settlement currency is refused (reason names `amount`): rounding it up would charge several
 * times its value, rounding it down would pay it for nothing.
 */
export function payoutFigures(amount: Decimal, currency: string, localCurrency: string, settlementCurrency: string, rates: PayoutRates): PayoutResult {
  const localScale = minorUnits(localCurrency);
  const settlementScale = minorUnits(settlementCurrency);
  const usdScale = minorUnits('USD');
  const inUsd = currency === 'USD';
  const local = inUsd ? multiplyRate(amount, rates.local, localScale, 'down') : amount;
  if (isZero(local)) return { ok: false, reason: `amount: ${toPlain(amount)} ${currency} is less than the smallest ${localCurrency} amount` };
  const usd = inUsd ? amount : divideRate(amount, rates.local, usdScale, 'up');
  // The exact value in the settlement currency, rounded as asked: one rounding from the request.
  const inSettlement = (rounding: Rounding): Decimal => {
    if (settlementCurrency === currency) return amount;
    if (settlementCurrency === localCurrency) return local;
    if (settlementCurrency === 'USD') return divideRate(amount, rates.local, usdScale, rounding);
    if (!rates.settlement) throw new RangeError(`a USD rate for ${settlementCurrency} is needed`);
    const exact = multiplyRate(amount, rates.settlement, amount.scale + rates.settlement.scale);
    return inUsd ? rescale(exact, settlementScale, rounding) : divideRate(exact, rates.local, settlementScale, rounding);
  };
  if (isZero(inSettlement('down'))) {
    return { ok: false, reason: `amount: ${toPlain(amount)} ${currency} is worth less than the smallest ${settlementCurrency} amount the settlement balance can reserve` };
  }
  return { ok: true, value: { local, usd, settlement: inSettlement('up') } };
}

function toPlain(d: Decimal): string {
  return toFixed(d, d.scale);
}

/**
 * A fixed USD fee (the chargeback fee) in the currency the deposit's credit was booked in, valued
 * as the credit was: as is in USD; in the deposit's local currency at the deposit's own rate
 * (local_amount ÷ usd_amount, fixed at creation); in any other currency at `usdRate` (units per
 * USD, the rate of the moment). Rounded half-up to the currency's minor unit.
 */
export function usdFeeIn(feeUsd: Decimal, currency: string, d: Pick<DepositFigures, 'usd_amount' | 'local_amount' | 'local_currency'>, usdRate?: Decimal): Decimal {
  if (currency === 'USD') return roundToMinor(feeUsd, currency);
  if (currency === d.local_currency) {
    const usd = fromDb(d.usd_amount);
    if (isZero(usd)) return zero(currency);
    return divideRate(multiplyRate(feeUsd, fromDb(d.local_amount), feeUsd.scale + 12), usd, minorUnits(currency));
  }
  if (!usdRate) throw new RangeError(`a USD rate for ${currency} is needed`);
  return fromUsd(feeUsd, usdRate, currency);
}

/** A USD amount in `currency` at `usdRate` (units per USD), rounded half-up to its minor unit. */
export function fromUsd(usd: Decimal, usdRate: Decimal, currency: string): Decimal {
  return multiplyRate(usd, usdRate, minorUnits(currency));
}

function zero(currency: string): Decimal {
  return { units: 0n, scale: minorUnits(currency) };
}

function sumOf(currency: string, ...parts: (Decimal | null)[]): Decimal {
  return parts.reduce<Decimal>((total, p) => (p ? add(total, p) : total), zero(currency));
}
