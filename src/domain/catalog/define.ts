// Shorthand for the per-region catalog files: currency and logo follow from the country, and
// the streamline payment type from the method type, so the data files list only what varies.
import { getCountry } from '../countries.ts';
import type { PayerField, PaymentKind, PaymentMethod, PaymentType, StreamlinePaymentType } from './types.ts';

export const IDENTITY: readonly PayerField[] = ['payer.document', 'payer.first_name', 'payer.last_name', 'payer.email'];
export const WITH_PHONE: readonly PayerField[] = [...IDENTITY, 'payer.phone'];
export const WITH_ADDRESS: readonly PayerField[] = [
  ...IDENTITY,
  'payer.address.street',
  'payer.address.city',
  'payer.address.state',
  'payer.address.zip_code',
];

export const MINUTES = {
  /** Card and wallet sessions: the customer approves at once or not at all. */
  SESSION: 30,
  /** Instant payments and online-banking redirects. */
  HOUR: 60,
  DAY: 1440,
  /** Cash vouchers and branch deposits. */
  THREE_DAYS: 4320,
} as const;

const STREAMLINE_BY_TYPE: Record<PaymentType, StreamlinePaymentType> = {
  BANK_TRANSFER: '00',
  BANK_DEPOSIT: '01',
  VOUCHER: '02',
  CREDIT_CARD: '03',
  DEBIT_CARD: '03',
  WALLET: '00',
  CRYPTO: '00',
};

const KIND_BY_TYPE: Record<PaymentType, PaymentKind> = {
  BANK_TRANSFER: 'bank_transfer',
  BANK_DEPOSIT: 'bank_deposit',
  VOUCHER: 'voucher',
  CREDIT_CARD: 'card',
  DEBIT_CARD: 'card',
  WALLET: 'wallet',
  CRYPTO: 'crypto',
};

const DEFAULT_EXPIRY: Record<PaymentType, number> = {
  BANK_TRANSFER: MINUTES.DAY,
  BANK_DEPOSIT: MINUTES.THREE_DAYS,
  VOUCHER: MINUTES.THREE_DAYS,
  CREDIT_CARD: MINUTES.SESSION,
  DEBIT_CARD: MINUTES.SESSION,
  WALLET: MINUTES.SESSION,
  CRYPTO: MINUTES.HOUR,
};

export interface MethodSpec {
  code: string;
  name: string;
  type: PaymentType;
  /** [min, max] in the local currency. */
  limits: readonly [string, string];
  kind?: PaymentKind;
  fields?: readonly PayerField[];
  expiryMinutes?: number;
  streamline?: StreamlinePaymentType;
  iframe?: boolean;
}

export const VISA = (limits: readonly [string, string]): MethodSpec => ({
  code: 'VI',
  name: 'Visa',
  type: 'CREDIT_CARD',
  limits,
  iframe: true,
});
export const MASTERCARD = (limits: readonly [string, string]): MethodSpec => ({
  code: 'MC',
  name: 'Mastercard',
  type: 'CREDIT_CARD',
  limits,
  iframe: true,
});

export function defineCountry(country: string, specs: readonly MethodSpec[]): PaymentMethod[] {
  const c = getCountry(country);
  if (!c) throw new Error(`catalog for unknown country ${country}`);
  return specs.map((s) => ({
    country: c.code,
    code: s.code,
    name: s.name,
    type: s.type,
    kind: s.kind ?? KIND_BY_TYPE[s.type],
    logo: `/logos/${c.code.toLowerCase()}/${s.code.toLowerCase()}.svg`,
    currency: c.currency,
    minAmount: s.limits[0],
    maxAmount: s.limits[1],
    requiredPayerFields: s.fields ?? IDENTITY,
    streamlinePaymentType: s.streamline ?? STREAMLINE_BY_TYPE[s.type],
    expiryMinutes: s.expiryMinutes ?? DEFAULT_EXPIRY[s.type],
    ...(s.iframe === undefined ? {} : { iframe: s.iframe }),
  }));
}
