// The payment-method catalog: which methods each accepted country offers, with the limits,
// payer fields and expiry the deposit flow enforces. Data lives in ./catalog/<region>.ts.
import { AFRICA } from './catalog/africa.ts';
import { AMERICAS } from './catalog/americas.ts';
import { ASIA } from './catalog/asia.ts';
import type { PaymentMethod } from './catalog/types.ts';

export { PAYMENT_TYPES } from './catalog/types.ts';
export type {
  PayerField,
  PaymentKind,
  PaymentMethod,
  PaymentType,
  StreamlinePaymentType,
} from './catalog/types.ts';

const BY_COUNTRY = new Map<string, PaymentMethod[]>();
for (const method of [...AMERICAS, ...AFRICA, ...ASIA]) {
  const list = BY_COUNTRY.get(method.country) ?? [];
  list.push(method);
  BY_COUNTRY.set(method.country, list);
}

/** Every method of every country. */
export function catalogMethods(): readonly PaymentMethod[] {
  return [...BY_COUNTRY.values()].flat();
}

export function methodsForCountry(country: string): readonly PaymentMethod[] {
  return BY_COUNTRY.get(country.trim().toUpperCase()) ?? [];
}

/** Method codes are matched case-insensitively: merchants send `ix` as often as `IX`. */
export function findMethod(country: string, code: string): PaymentMethod | undefined {
  const wanted = code.trim().toUpperCase();
  return methodsForCountry(country).find((m) => m.code === wanted);
}
