// Payer address checks: state against the country's subdivision list, zip against its postal
// code format. Where we hold neither, any short non-empty value passes, because rejecting a real
// address we cannot check would block a payment for nothing.
import { getCountry, type State } from './countries.ts';

export type StateResult = { ok: true; code: string } | { ok: false; reason: string };
export type ZipResult = { ok: true; zip: string } | { ok: false; reason: string };

const FREE_TEXT_MAX = 20;

const ZIP_EXAMPLES: Record<string, string> = {
  AR: '1425 or C1425DKF',
  BR: '01310-100',
  CL: '8320000',
  CN: '100000',
  CO: '110111',
  EC: '170150',
  IN: '110001',
  ID: '10110',
  KE: '00100',
  MY: '50450',
  MX: '06700',
  NG: '100001',
  PE: '15001',
  PH: '1000',
  PY: '001001',
  TH: '10200',
  TZ: '11101',
  UY: '11000',
  VN: '100000',
  ZA: '2001',
};

// Payers type names with or without accents ("Sao Paulo", "Bogota D.C.").
function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[.'’]/g, '')
    .replace(/[\s-]+/g, ' ')
    .trim()
    .toLowerCase();
}

function freeText(value: string, field: string): { ok: true; value: string } | { ok: false; reason: string } {
  const v = value.trim();
  if (!v) return { ok: false, reason: `${field} is required` };
  if (v.length > FREE_TEXT_MAX) return { ok: false, reason: `${field} must be at most ${FREE_TEXT_MAX} characters` };
  return { ok: true, value: v };
}

function findState(states: readonly State[], countryCode: string, input: string): State | undefined {
  const upper = input.toUpperCase();
  const bare = upper.startsWith(`${countryCode}-`) ? upper.slice(countryCode.length + 1) : upper;
  const byCode = states.find((s) => s.code === bare);
  if (byCode) return byCode;
  const wanted = fold(input);
  return states.find((s) => fold(s.name) === wanted);
}

export function validateState(country: string, state: string): StateResult {
  const c = getCountry(country);
  if (!c) return { ok: false, reason: `country '${country}' is not accepted` };
  const text = freeText(state ?? '', 'state');
  if (!text.ok) return text;
  if (c.states.length === 0) return { ok: true, code: text.value };
  const found = findState(c.states, c.code, text.value);
  return found ? { ok: true, code: found.code } : { ok: false, reason: `unknown state '${text.value}' for ${c.code}` };
}

export function validateZip(country: string, zip: string): ZipResult {
  const c = getCountry(country);
  if (!c) return { ok: false, reason: `country '${country}' is not accepted` };
  const text = freeText(zip ?? '', 'zip code');
  if (!text.ok) return text;
  const value = text.value.toUpperCase();
  if (!c.zipPattern) return { ok: true, zip: value };
  if (c.zipPattern.test(value)) return { ok: true, zip: value };
  const example = ZIP_EXAMPLES[c.code];
  return { ok: false, reason: `invalid zip code for ${c.code}${example ? ` (e.g. ${example})` : ''}` };
}
