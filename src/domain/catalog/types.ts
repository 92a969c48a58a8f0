export const PAYMENT_TYPES = [
  'BANK_TRANSFER',
  'BANK_DEPOSIT',
  'VOUCHER',
  'CREDIT_CARD',
  'DEBIT_CARD',
  'WALLET',
  'CRYPTO',
] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

/** Which payment-info builder renders the instructions the customer follows. */
export type PaymentKind = 'pix' | 'bank_transfer' | 'bank_deposit' | 'voucher' | 'card' | 'wallet' | 'crypto';

export type PayerField =
  | 'payer.document'
  | 'payer.first_name'
  | 'payer.last_name'
  | 'payer.email'
  | 'payer.phone'
  | 'payer.address.street'
  | 'payer.address.city'
  | 'payer.address.state'
  | 'payer.address.zip_code';

/** Streamline `x_payment_type`: 00 online bank transfer, 01 bank deposit, 02 voucher, 03 card. */
export type StreamlinePaymentType = '00' | '01' | '02' | '03';

export interface PaymentMethod {
  readonly country: string;
  /** At most 3 characters, unique within the country. */
  readonly code: string;
  readonly name: string;
  readonly type: PaymentType;
  readonly kind: PaymentKind;
  readonly logo: string;
  readonly currency: string;
  /** Decimal strings in the local currency. */
  readonly minAmount: string;
  readonly maxAmount: string;
  /** Payer fields a ONE_SHOT deposit must carry for this method. */
  readonly requiredPayerFields: readonly PayerField[];
  readonly streamlinePaymentType: StreamlinePaymentType;
  /** How long a PENDING deposit waits for the customer before it expires. */
  readonly expiryMinutes: number;
  /** The provider page can be embedded in the hosted checkout. */
  readonly iframe?: boolean;
}
