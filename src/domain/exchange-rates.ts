// Sample USD -> local rates for staging, close to 2025 market levels. Production replaces them
// through the admin API; these only need to be plausible so converted amounts look real.
import { ACCEPTED_COUNTRIES } from './countries.ts';

export const SAMPLE_USD_RATES: Readonly<Record<string, string>> = {
  USD: '1',
  ARS: '1050.5',
  BRL: '5.4321',
  CLP: '940.25',
  CNY: '7.1850',
  COP: '4100.5',
  GHS: '10.45',
  IDR: '16250',
  INR: '85.65',
  KES: '129.25',
  MXN: '18.25',
  MYR: '4.2350',
  NGN: '1530.75',
  PEN: '3.5780',
  PHP: '56.85',
  PYG: '7850',
  THB: '32.45',
  TZS: '2650',
  UGX: '3620',
  UYU: '40.15',
  VND: '25950',
  XAF: '575.45',
  ZAR: '17.8525',
};

// Fail at load rather than at the first conversion if a country's currency is missing.
for (const c of ACCEPTED_COUNTRIES) {
  if (!SAMPLE_USD_RATES[c.currency]) throw new Error(`no sample USD rate for ${c.currency}`);
}
