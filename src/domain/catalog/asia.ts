// Asian payment methods: real-time bank rails (UPI, FPX, PromptPay, VietQR), e-wallets and
// convenience-store vouchers.
import { defineCountry, MASTERCARD, MINUTES, VISA, WITH_PHONE, type MethodSpec } from './define.ts';
import type { PaymentMethod } from './types.ts';

const CN: MethodSpec[] = [
  { code: 'AP', name: 'Alipay', type: 'WALLET', limits: ['1.00', '50000.00'] },
  { code: 'WC', name: 'WeChat Pay', type: 'WALLET', limits: ['1.00', '50000.00'] },
  { code: 'UP', name: 'UnionPay online banking', type: 'BANK_TRANSFER', limits: ['1.00', '200000.00'], expiryMinutes: MINUTES.HOUR },
];

const IN: MethodSpec[] = [
  { code: 'UI', name: 'UPI', type: 'BANK_TRANSFER', limits: ['1.00', '100000.00'], expiryMinutes: MINUTES.HOUR },
  { code: 'NB', name: 'Netbanking', type: 'BANK_TRANSFER', limits: ['10.00', '500000.00'], expiryMinutes: MINUTES.HOUR },
  { code: 'PT', name: 'Paytm', type: 'WALLET', limits: ['1.00', '100000.00'], fields: WITH_PHONE },
  { code: 'RU', name: 'RuPay', type: 'DEBIT_CARD', limits: ['10.00', '200000.00'], iframe: true },
  VISA(['10.00', '500000.00']),
  MASTERCARD(['10.00', '500000.00']),
];

const idVa = (code: string, name: string): MethodSpec => ({
  code,
  name: `${name} Virtual Account`,
  type: 'BANK_TRANSFER',
  limits: ['10000', '100000000'],
});

const ID: MethodSpec[] = [
  idVa('BC', 'BCA'),
  idVa('MD', 'Mandiri'),
  idVa('BI', 'BNI'),
  idVa('BR', 'BRI'),
  { code: 'QR', name: 'QRIS', type: 'WALLET', limits: ['1000', '10000000'] },
  { code: 'OV', name: 'OVO', type: 'WALLET', limits: ['10000', '10000000'], fields: WITH_PHONE },
  { code: 'DA', name: 'DANA', type: 'WALLET', limits: ['10000', '10000000'], fields: WITH_PHONE },
  { code: 'AM', name: 'Alfamart', type: 'VOUCHER', limits: ['10000', '5000000'] },
  { code: 'IM', name: 'Indomaret', type: 'VOUCHER', limits: ['10000', '5000000'] },
];

const MY: MethodSpec[] = [
  { code: 'FP', name: 'FPX', type: 'BANK_TRANSFER', limits: ['1.00', '30000.00'], expiryMinutes: MINUTES.HOUR },
  { code: 'DN', name: 'DuitNow QR', type: 'BANK_TRANSFER', limits: ['1.00', '30000.00'], expiryMinutes: MINUTES.HOUR },
  { code: 'TG', name: "Touch 'n Go eWallet", type: 'WALLET', limits: ['1.00', '5000.00'], fields: WITH_PHONE },
  VISA(['1.00', '30000.00']),
  MASTERCARD(['1.00', '30000.00']),
];

const PH: MethodSpec[] = [
  { code: 'GC', name: 'GCash', type: 'WALLET', limits: ['20.00', '100000.00'], fields: WITH_PHONE },
  { code: 'PM', name: 'Maya', type: 'WALLET', limits: ['20.00', '100000.00'], fields: WITH_PHONE },
  { code: 'IB', name: 'InstaPay online banking', type: 'BANK_TRANSFER', limits: ['20.00', '50000.00'], expiryMinutes: MINUTES.HOUR },
  { code: '7E', name: '7-Eleven', type: 'VOUCHER', limits: ['20.00', '10000.00'] },
  { code: 'CL', name: 'Cebuana Lhuillier', type: 'VOUCHER', limits: ['20.00', '50000.00'] },
];

const TH: MethodSpec[] = [
  { code: 'PP', name: 'PromptPay', type: 'BANK_TRANSFER', limits: ['1.00', '500000.00'], expiryMinutes: MINUTES.HOUR },
  { code: 'IB', name: 'Online banking', type: 'BANK_TRANSFER', limits: ['20.00', '500000.00'], expiryMinutes: MINUTES.HOUR },
  { code: 'TM', name: 'TrueMoney Wallet', type: 'WALLET', limits: ['1.00', '50000.00'], fields: WITH_PHONE },
  { code: '7E', name: '7-Eleven', type: 'VOUCHER', limits: ['20.00', '50000.00'] },
  VISA(['20.00', '500000.00']),
  MASTERCARD(['20.00', '500000.00']),
];

const VN: MethodSpec[] = [
  { code: 'VQ', name: 'VietQR', type: 'BANK_TRANSFER', limits: ['10000', '500000000'], expiryMinutes: MINUTES.HOUR },
  { code: 'MM', name: 'MoMo', type: 'WALLET', limits: ['10000', '50000000'], fields: WITH_PHONE },
  { code: 'ZP', name: 'ZaloPay', type: 'WALLET', limits: ['10000', '50000000'], fields: WITH_PHONE },
  VISA(['10000', '200000000']),
  MASTERCARD(['10000', '200000000']),
];

export const ASIA: readonly PaymentMethod[] = [
  ...defineCountry('CN', CN),
  ...defineCountry('ID', ID),
  ...defineCountry('IN', IN),
  ...defineCountry('MY', MY),
  ...defineCountry('PH', PH),
  ...defineCountry('TH', TH),
  ...defineCountry('VN', VN),
];
