// African payment methods: mobile money dominates. Providers there require the payer's mobile
// number for every method, cards included.
import { defineCountry, MASTERCARD, VISA, WITH_PHONE, type MethodSpec } from './define.ts';
import type { PaymentMethod } from './types.ts';

const phone = (spec: MethodSpec): MethodSpec => ({ ...spec, fields: WITH_PHONE });

const CM: MethodSpec[] = [
  { code: 'OM', name: 'Orange Money', type: 'WALLET', limits: ['100', '1000000'] },
  { code: 'MO', name: 'MTN Mobile Money', type: 'WALLET', limits: ['100', '1000000'] },
];

const GH: MethodSpec[] = [
  { code: 'MT', name: 'MTN MoMo', type: 'WALLET', limits: ['1.00', '20000.00'] },
  { code: 'TC', name: 'Telecel Cash', type: 'WALLET', limits: ['1.00', '20000.00'] },
  { code: 'AT', name: 'AirtelTigo Money', type: 'WALLET', limits: ['1.00', '20000.00'] },
  VISA(['1.00', '50000.00']),
  MASTERCARD(['1.00', '50000.00']),
];

const KE: MethodSpec[] = [
  { code: 'MP', name: 'M-Pesa', type: 'WALLET', limits: ['10.00', '250000.00'] },
  { code: 'AM', name: 'Airtel Money', type: 'WALLET', limits: ['10.00', '150000.00'] },
  VISA(['10.00', '500000.00']),
  MASTERCARD(['10.00', '500000.00']),
];

const NG: MethodSpec[] = [
  { code: 'BT', name: 'Bank transfer', type: 'BANK_TRANSFER', limits: ['100.00', '10000000.00'] },
  { code: 'US', name: 'USSD', type: 'BANK_TRANSFER', limits: ['100.00', '100000.00'] },
  { code: 'OP', name: 'OPay', type: 'WALLET', limits: ['100.00', '5000000.00'] },
  { code: 'VE', name: 'Verve', type: 'DEBIT_CARD', limits: ['100.00', '5000000.00'], iframe: true },
  VISA(['100.00', '5000000.00']),
  MASTERCARD(['100.00', '5000000.00']),
];

const TZ: MethodSpec[] = [
  { code: 'MP', name: 'M-Pesa', type: 'WALLET', limits: ['1000', '5000000'] },
  { code: 'TP', name: 'Mixx by Yas (Tigo Pesa)', type: 'WALLET', limits: ['1000', '5000000'] },
  { code: 'AM', name: 'Airtel Money', type: 'WALLET', limits: ['1000', '5000000'] },
  { code: 'HP', name: 'HaloPesa', type: 'WALLET', limits: ['1000', '5000000'] },
];

const UG: MethodSpec[] = [
  { code: 'MT', name: 'MTN MoMo', type: 'WALLET', limits: ['1000', '5000000'] },
  { code: 'AM', name: 'Airtel Money', type: 'WALLET', limits: ['1000', '5000000'] },
];

const ZA: MethodSpec[] = [
  { code: 'EF', name: 'Instant EFT', type: 'BANK_TRANSFER', limits: ['10.00', '500000.00'], expiryMinutes: 60 },
  { code: 'SP', name: 'SnapScan', type: 'WALLET', limits: ['10.00', '50000.00'] },
  { code: '1V', name: '1Voucher', type: 'VOUCHER', limits: ['10.00', '5000.00'] },
  VISA(['10.00', '200000.00']),
  MASTERCARD(['10.00', '200000.00']),
];

export const AFRICA: readonly PaymentMethod[] = [
  ...defineCountry('CM', CM.map(phone)),
  ...defineCountry('GH', GH.map(phone)),
  ...defineCountry('KE', KE.map(phone)),
  ...defineCountry('NG', NG.map(phone)),
  ...defineCountry('TZ', TZ.map(phone)),
  ...defineCountry('UG', UG.map(phone)),
  ...defineCountry('ZA', ZA.map(phone)),
];
