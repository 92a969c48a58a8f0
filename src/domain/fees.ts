// Deposit fee and surcharge, and who pays them (spec: fee_on_payer, surcharge_on_payer).
//
// - The fee is the processing fee caja charges for the method's type, a percentage of the amount.
// - The surcharge is what some methods add on top for cash handling (vouchers, branch deposits).
// - *_on_payer true: the customer pays it on top of the amount; false: it is taken from what the
//   merchant receives. The merchant is credited `amount` minus whatever the customer did not pay.
// bonus_amount, strikethrough_price and description are display-only and never reach this module.
import { add, type Decimal, percentOf, sub } from './money.ts';
import type { PaymentType } from './catalog.ts';

/** Percent of the amount, per method type. Data, not configuration: one schedule for all. */
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

/** Hosted deposits without a chosen method are quoted with the bank-transfer fee until the
 * customer picks one; this is what GET shows as fee_amount meanwhile. */
export const DEFAULT_TYPE: PaymentType = 'BANK_TRANSFER';

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

/** All amounts at `scale` decimals (2), rounded half-up, in the currency of `amount`. */
export function computeCharges(amount: Decimal, type: PaymentType | null, opts: ChargeOptions, scale = 2): Charges {
  const t = type ?? DEFAULT_TYPE;
  const fee = percentOf(amount, FEE_PERCENT[t], scale);
  const surchargePercent = SURCHARGE_PERCENT[t];
  const surcharge = surchargePercent ? percentOf(amount, surchargePercent, scale) : { units: 0n, scale };
  let payerAmount = amount;
  let merchantAmount = amount;
  if (opts.feeOnPayer) payerAmount = add(payerAmount, fee);
  else merchantAmount = sub(merchantAmount, fee);
  if (opts.surchargeOnPayer) payerAmount = add(payerAmount, surcharge);
  else merchantAmount = sub(merchantAmount, surcharge);
  return { fee, surcharge, payerAmount, merchantAmount };
}
