// Deposit fee and surcharge, and who pays them (spec: fee_on_payer, surcharge_on_payer).
//
// - The fee is the processing fee caja charges for the method's type, a percentage of the amount.
// - The surcharge is what some methods add on top for cash handling (vouchers, branch deposits).
// - *_on_payer true: the customer pays it on top of the amount; false: it is taken from what the
//   merchant receives. The merchant is credited `amount` minus whatever the customer did not pay.
// bonus_amount, strikethrough_price and description are display-only and never reach this module.
import { add, type Decimal, parseAmount, percentOf, sub, toFixed, toPlainString } from './money.ts';
import { PAYMENT_TYPES, type PaymentType } from './catalog.ts';

/** Percent of the amount, per method type: the global schedule, for every merchant without its own. */
export const FEE_PERCENT: Record<PaymentType, string> = {
  BANK_TRANSFER: '1.5',
  BANK_DEPOSIT: '1.5',
  VOUCHER: '2.0',
  CREDIT_CARD: '3.5',
  DEBIT_CARD: '2.5',
  WALLET: '2.5',
  CRYPTO: '1.0',
};

/** Cash-handling surcharge, percent of the amount; methods without one are absent. */
export const SURCHARGE_PERCENT: Partial<Record<PaymentType, string>> = {
  VOUCHER: '1.0',
  BANK_DEPOSIT: '0.5',
};

/**
 * The chargeback fee, a fixed amount in USD taken from the merchant's balance with each chargeback
 * of a card deposit (an acquirer bills its own on its invoice, not in its notification): the
 * global price, for every merchant without its own. Not given back when the chargeback is
 * reversed. In the settlement currency it is converted as the deposit was (chargebackFeeIn).
 */
export const CHARGEBACK_FEE_USD = '15.00';

/** Hosted deposits without a chosen method are quoted with the bank-transfer fee until the
 * customer picks one; this is what GET shows as fee_amount meanwhile. */
export const DEFAULT_TYPE: PaymentType = 'BANK_TRANSFER';

/**
 * A merchant's own percentages over the global schedule: only the types it overrides (a
 * surcharge of "0" removes one). Stored on the merchant and copied onto each deposit at creation.
 */
export interface FeeOverrides {
  fee?: Partial<Record<PaymentType, string>>;
  surcharge?: Partial<Record<PaymentType, string>>;
  /** The merchant's own chargeback fee, USD ("0": none). */
  chargeback?: string;
}

/** The percentages in effect per type: the overrides where given, else the global schedule ("0" for no surcharge). */
export function effectiveSchedule(o: FeeOverrides | null | undefined): { fee: Record<PaymentType, string>; surcharge: Record<PaymentType, string>; chargeback: string } {
  const fee = {} as Record<PaymentType, string>;
  const surcharge = {} as Record<PaymentType, string>;
  for (const t of PAYMENT_TYPES) {
    fee[t] = o?.fee?.[t] ?? FEE_PERCENT[t];
    surcharge[t] = o?.surcharge?.[t] ?? SURCHARGE_PERCENT[t] ?? '0';
  }
  return { fee, surcharge, chargeback: o?.chargeback ?? CHARGEBACK_FEE_USD };
}

/** At most 4 decimals: a hundredth of a basis point is as fine as any contract goes. */
export const FEE_DECIMALS = 4;

/** One percentage as an operator typed it: 0 ≤ p < 100, at most 4 decimals; its plain text, or why not. */
export function parsePercent(v: unknown): { ok: true; value: string } | { ok: false; reason: string } {
  if (typeof v !== 'string' && typeof v !== 'number') return { ok: false, reason: 'must be a percentage, as a string like "1.25"' };
  const p = parseAmount(typeof v === 'string' ? v.trim() : v, { maxDecimals: FEE_DECIMALS, maxIntegerDigits: 2, allowZero: true });
  if (!p.ok) return { ok: false, reason: p.reason.includes('integer digits') ? 'must be less than 100' : `${p.reason} (a percentage from 0 to less than 100)` };
  // Plain text without trailing zeros: "1.5000" is stored and shown as "1.5".
  return { ok: true, value: toPlainString(p.value) };
}

/** A chargeback fee as an operator typed it: a USD amount, 0 ≤ x < 1,000,000, at most 2 decimals; its plain text, or why not. */
export function parseChargebackFee(v: unknown): { ok: true; value: string } | { ok: false; reason: string } {
  if (typeof v !== 'string' && typeof v !== 'number') return { ok: false, reason: 'must be an amount in USD, as a string like "15.00"' };
  const p = parseAmount(typeof v === 'string' ? v.trim() : v, { maxDecimals: 2, maxIntegerDigits: 6, allowZero: true });
  if (!p.ok) return { ok: false, reason: p.reason.includes('integer digits') ? 'must be less than 1000000 (USD)' : `${p.reason} (an amount in USD)` };
  return { ok: true, value: toFixed(p.value, 2) };
}

/**
 * A fee schedule sent to PUT /admin/merchants/{id}/fees or the console's form: `{fee: {TYPE:
 * percent}, surcharge: {TYPE: percent}, chargeback: "USD amount"}`, each optional; every
 * problem named by its field.
 */
export function validateFeeOverrides(body: unknown): { ok: true; value: FeeOverrides } | { ok: false; details: string[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, details: ['body: must be an object {fee, surcharge}'] };
  const details: string[] = [];
  const value: FeeOverrides = {};
  for (const [key, given] of Object.entries(body)) {
    if (key !== 'fee' && key !== 'surcharge' && key !== 'chargeback') {
      details.push(`${key}: unknown field (fee, surcharge and chargeback are)`);
      continue;
    }
    if (given === null || given === undefined) continue;
    if (key === 'chargeback') {
      // An empty value is "no override": the global price.
      if (given === '') continue;
      const p = parseChargebackFee(given);
      if (p.ok) value.chargeback = p.value;
      else details.push(`chargeback: ${p.reason}`);
      continue;
    }
    if (typeof given !== 'object' || Array.isArray(given)) {
      details.push(`${key}: must be an object of percentages by method type`);
      continue;
    }
    const out: Partial<Record<PaymentType, string>> = {};
    for (const [type, pct] of Object.entries(given as Record<string, unknown>)) {
      if (!(PAYMENT_TYPES as readonly string[]).includes(type)) {
        details.push(`${key}.${type}: not a method type (${PAYMENT_TYPES.join(', ')})`);
        continue;
      }
      // An empty value is "no override": the global schedule's.
      if (pct === '' || pct === null) continue;
      const p = parsePercent(pct);
      if (p.ok) out[type as PaymentType] = p.value;
      else details.push(`${key}.${type}: ${p.reason}`);
    }
    if (Object.keys(out).length) value[key] = out;
  }
  return details.length ? { ok: false, details } : { ok: true, value };
}

export interface ChargeOptions {
  feeOnPayer: boolean;
  surchargeOnPayer: boolean;
}

export interface Charges {
  fee: Decimal;
  surcharge: Decimal;
  /** What the customer pays. */
  payerAmount: Decimal;
  /** What the merchant balance is credited with on completion. */
  merchantAmount: Decimal;
}

/**
 * All amounts at `scale` decimals (2), rounded half-up, in the currency of `amount`; by the
 * merchant's overrides when it has them (a deposit's: those it was created under).
 */
export function computeCharges(amount: Decimal, type: PaymentType | null, opts: ChargeOptions, scale = 2, overrides: FeeOverrides | null = null): Charges {
  const t = type ?? DEFAULT_TYPE;
  const fee = percentOf(amount, overrides?.fee?.[t] ?? FEE_PERCENT[t], scale);
  const surchargePercent = overrides?.surcharge?.[t] ?? SURCHARGE_PERCENT[t];
  const surcharge = surchargePercent ? percentOf(amount, surchargePercent, scale) : { units: 0n, scale };
  let payerAmount = amount;
  let merchantAmount = amount;
  if (opts.feeOnPayer) payerAmount = add(payerAmount, fee);
  else merchantAmount = sub(merchantAmount, fee);
  if (opts.surchargeOnPayer) payerAmount = add(payerAmount, surcharge);
  else merchantAmount = sub(merchantAmount, surcharge);
  return { fee, surcharge, payerAmount, merchantAmount };
}
