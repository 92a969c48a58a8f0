// Payer phone validation. Numbers must carry their country calling code, so a customer abroad
// (or with a foreign SIM) is accepted as long as the number is valid where it belongs.
import { parsePhoneNumberFromString, validatePhoneNumberLength } from 'libphonenumber-js/max';
import { getCountry } from './countries.ts';

export type PhoneResult =
  | { ok: true; e164: string; country?: string }
  | { ok: false; reason: string };

const LENGTH_REASONS: Record<string, string> = {
  TOO_SHORT: 'too short',
  TOO_LONG: 'too long',
  INVALID_LENGTH: 'has an invalid length',
  INVALID_COUNTRY: 'has an unknown country calling code',
  NOT_A_NUMBER: 'is not a phone number',
};

export function validatePhone(country: string, phone: string): PhoneResult {
  const value = (phone ?? '').trim();
  if (!value) return { ok: false, reason: 'phone is required' };
  if (!value.startsWith('+')) {
    return { ok: false, reason: 'must be in international format with a leading + and the country calling code' };
  }
  // libphonenumber would read letters as a keypad (vanity) number; a payer phone never has them.
  if (!/^\+[\d\s().-]+$/.test(value)) {
    return { ok: false, reason: 'may only contain digits, spaces, dots, dashes and parentheses after the +' };
  }
  const parsed = parsePhoneNumberFromString(value);
  if (parsed?.isValid()) return { ok: true, e164: parsed.number, country: parsed.country };

  const lengthProblem = validatePhoneNumberLength(value);
  if (lengthProblem) return { ok: false, reason: `phone number ${LENGTH_REASONS[lengthProblem] ?? 'is not valid'}` };
  const region = parsed?.country ?? getCountry(country)?.phoneRegion ?? country;
  return { ok: false, reason: `not a valid phone number for ${region}` };
}

/**
 * Streamline clients often send a national number (x_mobile=3001234567); read it in the
 * country's numbering plan. Anything unreadable is returned as given, for validatePhone to judge.
 */
export function toInternational(country: string, phone: string): string {
  const value = phone.trim();
  if (value === '' || value.startsWith('+')) return value;
  const region = getCountry(country)?.phoneRegion;
  const parsed = region ? parsePhoneNumberFromString(value, region as Parameters<typeof parsePhoneNumberFromString>[1]) : undefined;
  return parsed?.number ?? value;
}
