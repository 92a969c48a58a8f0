// A customer-limit rule as an operator writes it (PUT /admin/limits, the console's merchant
// page): which merchant (0: every one), country and method ('*': every one), and the USD
// ceilings, each optional. Pure: the one place these fields are checked.
import { findMethod } from './catalog.ts';
import { getCountry } from './countries.ts';
import { isIntId } from './ids.ts';
import type { LimitRule } from './limits.ts';
import { type Decimal, parseAmount } from './money.ts';

function limitAmount(body: Record<string, unknown>, field: string, details: string[]): Decimal | null {
  const v = body[field];
  if (v === undefined) return null;
  const r = parseAmount(v, { maxIntegerDigits: 18, maxDecimals: 2 });
  if (!r.ok) {
    details.push(`${field}: ${r.reason}`);
    return null;
  }
  return r.value;
}

export function parseLimitInput(b: Record<string, unknown>): { ok: true; value: LimitRule } | { ok: false; details: string[] } {
  const details: string[] = [];
  let merchantId = 0;
  if (b.merchant_id !== undefined) {
    if (isIntId(b.merchant_id)) merchantId = b.merchant_id;
    else details.push('merchant_id: must be a merchant id');
  }
  let country = '*';
  if (b.country !== undefined && b.country !== '*') {
    if (typeof b.country === 'string' && getCountry(b.country)) country = b.country.toUpperCase();
    else details.push('country: must be an accepted country code or *');
  }
  let method = '*';
  if (b.payment_method !== undefined && b.payment_method !== '*') {
    if (typeof b.payment_method !== 'string' || !/^[0-9A-Za-z]{1,3}$/.test(b.payment_method)) details.push('payment_method: must be a method code or *');
    else if (country !== '*' && !findMethod(country, b.payment_method)) details.push(`payment_method: '${b.payment_method}' is not offered in ${country}`);
    else method = b.payment_method.toUpperCase();
  }
  const perTransaction = limitAmount(b, 'per_transaction', details);
  const daily = limitAmount(b, 'daily', details);
  const monthly = limitAmount(b, 'monthly', details);
  return details.length ? { ok: false, details } : { ok: true, value: { merchantId, country, paymentMethod: method, perTransaction, daily, monthly } };
}
