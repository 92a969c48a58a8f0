// Latin American payment methods. Codes are the provider family's public method codes where
// known (IX Pix, SE SPEI, OX OXXO, PC PSE, EY Efecty, WP Webpay, ...).
import { defineCountry, MASTERCARD, MINUTES, VISA, WITH_ADDRESS, WITH_PHONE, type MethodSpec } from './define.ts';
import type { PaymentMethod } from './types.ts';

const brBank = (code: string, name: string): MethodSpec => ({
  code,
  name,
  type: 'BANK_TRANSFER',
  limits: ['5.00', '50000.00'],
});

const BR: MethodSpec[] = [
  { code: 'IX', name: 'Pix', type: 'BANK_TRANSFER', kind: 'pix', limits: ['1.00', '100000.00'], expiryMinutes: MINUTES.HOUR },
  brBank('BB', 'Banco do Brasil'),
  brBank('I', 'Itaú'),
  brBank('B', 'Bradesco'),
  brBank('CA', 'Caixa'),
  brBank('SB', 'Santander'),
  { code: 'BL', name: 'Boleto', type: 'VOUCHER', limits: ['10.00', '30000.00'], fields: WITH_ADDRESS },
  { code: 'PP', name: 'PicPay', type: 'WALLET', limits: ['1.00', '10000.00'] },
  VISA(['5.00', '30000.00']),
  MASTERCARD(['5.00', '30000.00']),
  { code: 'CR', name: 'Crypto (USDT, BTC)', type: 'CRYPTO', limits: ['50.00', '100000.00'] },
];

const MX: MethodSpec[] = [
  { code: 'SE', name: 'SPEI', type: 'BANK_TRANSFER', limits: ['10.00', '500000.00'], expiryMinutes: MINUTES.DAY },
  { code: 'OX', name: 'OXXO', type: 'VOUCHER', limits: ['10.00', '10000.00'] },
  { code: 'BV', name: 'BBVA', type: 'BANK_DEPOSIT', limits: ['10.00', '50000.00'] },
  { code: 'BN', name: 'Banorte', type: 'BANK_DEPOSIT', limits: ['10.00', '50000.00'] },
  { code: 'ST', name: 'Santander', type: 'BANK_DEPOSIT', limits: ['10.00', '50000.00'] },
  { code: '7E', name: '7-Eleven', type: 'VOUCHER', limits: ['10.00', '10000.00'] },
  { code: 'FA', name: 'Farmacias del Ahorro', type: 'VOUCHER', limits: ['10.00', '10000.00'] },
  VISA(['10.00', '100000.00']),
  MASTERCARD(['10.00', '100000.00']),
  { code: 'CR', name: 'Crypto (USDT, BTC)', type: 'CRYPTO', limits: ['200.00', '500000.00'] },
];

// Colombian providers need the payer's mobile for every method.
const CO: MethodSpec[] = [
  { code: 'PC', name: 'PSE', type: 'BANK_TRANSFER', limits: ['5000', '50000000'], fields: WITH_PHONE, expiryMinutes: MINUTES.HOUR },
  { code: 'EY', name: 'Efecty', type: 'VOUCHER', limits: ['10000', '6000000'], fields: WITH_PHONE },
  { code: 'BA', name: 'Bancolombia', type: 'BANK_TRANSFER', limits: ['5000', '50000000'], fields: WITH_PHONE, expiryMinutes: MINUTES.HOUR },
  { code: 'NQ', name: 'Nequi', type: 'WALLET', limits: ['1000', '10000000'], fields: WITH_PHONE },
  { code: 'DP', name: 'Daviplata', type: 'WALLET', limits: ['1000', '10000000'], fields: WITH_PHONE },
  { ...VISA(['5000', '20000000']), fields: WITH_PHONE },
  { ...MASTERCARD(['5000', '20000000']), fields: WITH_PHONE },
];

const PE: MethodSpec[] = [
  { code: 'BC', name: 'BCP', type: 'BANK_TRANSFER', limits: ['5.00', '30000.00'] },
  { code: 'IB', name: 'Interbank', type: 'BANK_TRANSFER', limits: ['5.00', '30000.00'] },
  { code: 'BP', name: 'BBVA', type: 'BANK_TRANSFER', limits: ['5.00', '30000.00'] },
  { code: 'PF', name: 'PagoEfectivo', type: 'VOUCHER', limits: ['5.00', '10000.00'] },
  { code: 'YP', name: 'Yape', type: 'WALLET', limits: ['1.00', '2000.00'], fields: WITH_PHONE },
  VISA(['5.00', '20000.00']),
  MASTERCARD(['5.00', '20000.00']),
];

const CL: MethodSpec[] = [
  { code: 'WP', name: 'Webpay', type: 'DEBIT_CARD', limits: ['500', '5000000'], iframe: true },
  { code: 'SV', name: 'Servipag', type: 'VOUCHER', limits: ['1000', '2000000'] },
  { code: 'KH', name: 'Khipu', type: 'BANK_TRANSFER', limits: ['500', '5000000'], expiryMinutes: MINUTES.HOUR },
  { code: 'BE', name: 'BancoEstado', type: 'BANK_TRANSFER', limits: ['500', '5000000'] },
  { code: 'MH', name: 'MACH', type: 'WALLET', limits: ['500', '2000000'], fields: WITH_PHONE },
  VISA(['500', '5000000']),
  MASTERCARD(['500', '5000000']),
];

const AR: MethodSpec[] = [
  { code: 'RP', name: 'Rapipago', type: 'VOUCHER', limits: ['100.00', '500000.00'] },
  { code: 'PF', name: 'Pago Fácil', type: 'VOUCHER', limits: ['100.00', '500000.00'] },
  { code: 'TB', name: 'Transferencia bancaria (CBU/CVU)', type: 'BANK_TRANSFER', limits: ['100.00', '10000000.00'] },
  { code: 'MP', name: 'Mercado Pago', type: 'WALLET', limits: ['100.00', '2000000.00'] },
  VISA(['100.00', '5000000.00']),
  MASTERCARD(['100.00', '5000000.00']),
];

const UY: MethodSpec[] = [
  { code: 'AB', name: 'Abitab', type: 'VOUCHER', limits: ['50.00', '100000.00'] },
  { code: 'RE', name: 'Redpagos', type: 'VOUCHER', limits: ['50.00', '100000.00'] },
  { code: 'BR', name: 'BROU', type: 'BANK_TRANSFER', limits: ['50.00', '1000000.00'] },
  { code: 'IT', name: 'Itaú', type: 'BANK_TRANSFER', limits: ['50.00', '1000000.00'] },
  VISA(['50.00', '500000.00']),
  MASTERCARD(['50.00', '500000.00']),
];

const EC: MethodSpec[] = [
  { code: 'PI', name: 'Banco Pichincha', type: 'BANK_TRANSFER', limits: ['1.00', '10000.00'] },
  { code: 'GU', name: 'Banco Guayaquil', type: 'BANK_TRANSFER', limits: ['1.00', '10000.00'] },
  { code: 'RF', name: 'Red Facilito', type: 'VOUCHER', limits: ['1.00', '2000.00'] },
  VISA(['1.00', '5000.00']),
  MASTERCARD(['1.00', '5000.00']),
];

const PA: MethodSpec[] = [
  { code: 'YA', name: 'Yappy', type: 'WALLET', limits: ['1.00', '5000.00'], fields: WITH_PHONE },
  { code: 'BG', name: 'Banco General', type: 'BANK_TRANSFER', limits: ['1.00', '10000.00'] },
  { code: 'PU', name: 'Punto Pago', type: 'VOUCHER', limits: ['1.00', '1000.00'] },
  VISA(['1.00', '5000.00']),
  MASTERCARD(['1.00', '5000.00']),
];

const PY: MethodSpec[] = [
  { code: 'AQ', name: 'Aquí Pago', type: 'VOUCHER', limits: ['10000', '10000000'] },
  { code: 'PE', name: 'Pago Express', type: 'VOUCHER', limits: ['10000', '10000000'] },
  { code: 'TB', name: 'Transferencia bancaria (SIPAP)', type: 'BANK_TRANSFER', limits: ['10000', '50000000'] },
  VISA(['10000', '20000000']),
  MASTERCARD(['10000', '20000000']),
];

export const AMERICAS: readonly PaymentMethod[] = [
  ...defineCountry('AR', AR),
  ...defineCountry('BR', BR),
  ...defineCountry('CL', CL),
  ...defineCountry('CO', CO),
  ...defineCountry('EC', EC),
  ...defineCountry('MX', MX),
  ...defineCountry('PA', PA),
  ...defineCountry('PE', PE),
  ...defineCountry('PY', PY),
  ...defineCountry('UY', UY),
];
