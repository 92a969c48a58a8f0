// Payer document validation per accepted country. Check digits come from `stdnum` wherever it
// knows the document; the rest get a format check (length and charset), since a wrong-shaped
// document is the commonest merchant mistake and the provider rejects it anyway.
import { createRequire } from 'node:module';
import { getCountry } from './countries.ts';

export type DocumentResult =
  | { ok: true; type: string; normalized: string }
  | { ok: false; reason: string };

type Check = { ok: true; normalized: string } | { ok: false; reason: string };

interface DocumentRule {
  readonly type: string;
  /** Human description of the accepted shape, used in reasons ("11 digits"). */
  readonly shape: string;
  /** Compact forms this type is guessed from when no type is given; absent: never guessed. */
  readonly detect?: RegExp;
  /** Usually written with a dash before a single check digit, which tells it apart from a
   * same-length document without one (PY CI vs RUC, CO CC vs NIT, PE CE vs DNI-with-digit). */
  readonly dashedCheckDigit?: boolean;
  /** Dashes are part of the number (Panamanian cédulas), so they are kept when compacting. */
  readonly keepDashes?: boolean;
  check(compact: string): Check;
}

type StdnumResult = { isValid: true; compact: string } | { isValid: false; error: Error };
type StdnumValidator = { validate(value: string): StdnumResult };

// One country's validators at a time (stdnum/lib/cjs/<cc>, the modules the package's index
// gathers): the index loads every one of its 100-odd countries, 0.07 s of CPU more in every
// process that validates a document (each test file, each server start).
const requireStdnum = createRequire(import.meta.url);

function validator(country: string, name: string): StdnumValidator {
  const v = (requireStdnum(`stdnum/lib/cjs/${country.toLowerCase()}/index.js`) as Record<string, unknown>)[name];
  if (!v) throw new Error(`stdnum has no ${country}.${name}`);
  return v as StdnumValidator;
}

const fail = (reason: string): Check => ({ ok: false, reason });

function fromStdnum(type: string, shape: string, v: StdnumValidator, component?: string) {
  return (compact: string): Check => {
    const r = v.validate(compact);
    if (r.isValid) return { ok: true, normalized: r.compact };
    switch (r.error.name) {
      case 'InvalidChecksum':
        return fail(`invalid ${type} check digits`);
      case 'InvalidComponent':
        return fail(`invalid ${type}: ${component ?? 'a part of the number (date, region or prefix) is not valid'}`);
      default:
        return fail(`must be ${shape} (${type})`);
    }
  };
}

interface RuleOptions {
  detect?: RegExp;
  dashedCheckDigit?: boolean;
  keepDashes?: boolean;
  component?: string;
}

function std(type: string, shape: string, country: string, name: string, o: RuleOptions = {}): DocumentRule {
  return { type, shape, ...o, check: fromStdnum(type, shape, validator(country, name), o.component) };
}

/** A format-only rule; `extra` adds a semantic check on a well-shaped value. */
function fmt(
  type: string,
  shape: string,
  pattern: RegExp,
  o: RuleOptions & { extra?: (compact: string) => string | undefined } = {},
): DocumentRule {
  return {
    type,
    shape,
    ...o,
    check(compact) {
      if (!pattern.test(compact)) return fail(`must be ${shape} (${type})`);
      const problem = o.extra?.(compact);
      return problem ? fail(`invalid ${type}: ${problem}`) : { ok: true, normalized: compact };
    },
  };
}

const PASSPORT = fmt('PP', '5 to 20 letters or digits', /^[A-Z0-9]{5,20}$/);

function withPrefix(rule: DocumentRule, prefixes: string[], what: string): DocumentRule {
  return {
    ...rule,
    check(compact) {
      const r = rule.check(compact);
      if (r.ok && !prefixes.some((p) => r.normalized.startsWith(p))) return fail(`invalid ${rule.type}: ${what}`);
      return r;
    },
  };
}

function validDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

// NIK: 6-digit region (province 11-94), birth date DDMMYY with 40 added to the day for women.
function nikProblem(nik: string): string | undefined {
  const province = Number(nik.slice(0, 2));
  const day = Number(nik.slice(6, 8));
  const month = Number(nik.slice(8, 10));
  if (province < 11 || province > 94) return 'unknown province code';
  if (!validDate(2000, month, day > 40 ? day - 40 : day)) return 'birth date part is not a date';
  if (nik.endsWith('0000')) return 'serial number cannot be 0000';
  return undefined;
}

// NIDA numbers start with the holder's birth date as YYYYMMDD.
function nidaProblem(nida: string): string | undefined {
  const ok = validDate(Number(nida.slice(0, 4)), Number(nida.slice(4, 6)), Number(nida.slice(6, 8)));
  return ok ? undefined : 'birth date part is not a date';
}

// The Receita Federal rejects numbers of one repeated digit although their check digits work out.
function notRepeated(rule: DocumentRule): DocumentRule {
  return {
    ...rule,
    check(compact) {
      const r = rule.check(compact);
      if (r.ok && /^(\d)\1*$/.test(r.normalized)) return fail(`invalid ${rule.type}: a repeated digit is not a real number`);
      return r;
    },
  };
}

const uyCedula = validator('UY', 'cedula');

const RULES: Record<string, readonly DocumentRule[]> = {
  AR: [
    std('DNI', '7 or 8 digits', 'AR', 'dni', { detect: /^\d{7,8}$/ }),
    std('CUIT', '11 digits', 'AR', 'cuit', { detect: /^\d{11}$/ }),
    withPrefix(std('CUIL', '11 digits', 'AR', 'cuit'), ['20', '23', '24', '27'], 'must start with 20, 23, 24 or 27'),
  ],
  BR: [
    notRepeated(std('CPF', '11 digits', 'BR', 'cpf', { detect: /^\d{11}$/ })),
    // Letters are allowed in the first 12 positions from July 2026 (alphanumeric CNPJ).
    notRepeated(std('CNPJ', '14 digits', 'BR', 'cnpj', { detect: /^[0-9A-Z]{12}\d{2}$/ })),
  ],
  CL: [
    std('RUT', '7 or 8 digits and a check digit (0-9 or K)', 'CL', 'rut', {
      detect: /^\d{7,8}[0-9K]$/,
    }),
  ],
  CM: [
    fmt('NIU', 'a letter, 12 digits and a letter', /^[A-Z]\d{12}[A-Z]$/, { detect: /^[A-Z]\d{12}[A-Z]$/ }),
    fmt('CNI', '6 to 20 letters or digits', /^[A-Z0-9]{6,20}$/, { detect: /^\d{6,20}$/ }),
    PASSPORT,
  ],
  CN: [
    std('RIC', '18 characters (17 digits and a digit or X)', 'CN', 'ric', { detect: /^\d{17}[\dX]$/ }),
    std('USCC', '18 letters or digits', 'CN', 'uscc', { detect: /^[0-9A-Z]{18}$/ }),
    PASSPORT,
  ],
  CO: [
    fmt('CC', '6 to 10 digits', /^\d{6,10}$/, { detect: /^\d{6,10}$/ }),
    std('NIT', '8 to 16 digits including the check digit', 'CO', 'nit', {
      detect: /^\d{8,16}$/,
      dashedCheckDigit: true,
    }),
    fmt('CE', '3 to 10 digits', /^\d{3,10}$/),
    PASSPORT,
  ],
  EC: [
    std('CI', '10 digits', 'EC', 'ci', { detect: /^\d{10}$/, component: 'unknown province code' }),
    std('RUC', '13 digits', 'EC', 'ruc', { detect: /^\d{13}$/ }),
    PASSPORT,
  ],
  GH: [
    fmt('ID', 'GHA and 10 digits (GHA-XXXXXXXXX-X)', /^GHA\d{10}$/, { detect: /^GHA\d{10}$/ }),
    std('TIN', 'a letter (C, G, P, Q or V) and 10 digits', 'GH', 'tin', { detect: /^[A-Z]\d{10}$/ }),
    PASSPORT,
  ],
  IN: [
    std('PAN', '10 characters (5 letters, 4 digits, 1 letter)', 'IN', 'pan', {
      detect: /^[A-Z]{5}\d{4}[A-Z]$/,
      component: 'the fourth letter is not a known holder type',
    }),
    std('AADHAAR', '12 digits not starting with 0 or 1', 'IN', 'aadhaar', { detect: /^\d{12}$/ }),
  ],
  ID: [
    fmt('NIK', '16 digits', /^\d{16}$/, { detect: /^\d{16}$/, extra: nikProblem }),
    std('NPWP', '15 digits', 'ID', 'npwp', { detect: /^\d{15}$/ }),
    PASSPORT,
  ],
  KE: [
    fmt('ID', '7 or 8 digits', /^\d{7,8}$/, { detect: /^\d{7,8}$/ }),
    std('PIN', 'a letter (A or P), 9 digits and a letter', 'KE', 'pin', { detect: /^[AP]\d{9}[A-Z]$/ }),
    PASSPORT,
  ],
  MY: [
    std('NRIC', '12 digits', 'MY', 'nric', { detect: /^\d{12}$/, component: 'birth date or birth place code is not valid' }),
    std('MYKAD', '12 digits', 'MY', 'nric', { component: 'birth date or birth place code is not valid' }),
    PASSPORT,
  ],
  MX: [
    std('CURP', '18 characters', 'MX', 'curp', { detect: /^[A-Z]{4}\d{6}[A-Z0-9]{8}$/ }),
    std('RFC', '12 or 13 characters', 'MX', 'rfc', { detect: /^[A-ZÑ&]{3,4}\d{6}[A-Z0-9]{3}$/ }),
  ],
  NG: [
    fmt('NIN', '11 digits', /^\d{11}$/, { detect: /^\d{11}$/ }),
    fmt('BVN', '11 digits', /^\d{11}$/),
    fmt('TIN', '10 or 12 digits', /^(\d{10}|\d{12})$/, { detect: /^(\d{10}|\d{12})$/ }),
  ],
  PA: [
    fmt('CIP', 'province-book-entry, e.g. 8-123-4567', /^(PE|E|N|[1-9]|1[0-3])(AV|PI)?-\d{1,4}-\d{1,6}$/, {
      detect: /^(PE|E|N|[1-9]|1[0-3])(AV|PI)?-\d{1,4}-\d{1,6}$/,
      keepDashes: true,
    }),
    fmt('RUC', 'dash-separated groups of letters and digits, up to 25 characters', /^(?=.{5,25}$)[0-9A-Z]+(-[0-9A-Z]+){1,4}$/, {
      detect: /^(?=.{5,25}$)[0-9A-Z]+(-[0-9A-Z]+){1,4}$/,
      keepDashes: true,
    }),
    PASSPORT,
  ],
  PE: [
    std('RUC', '11 digits', 'PE', 'ruc', { detect: /^\d{11}$/ }),
    std('CE', '9 digits', 'PE', 'ce', { detect: /^\d{9}$/ }),
    // The 9-digit form carries the CUI check digit printed on the card; the DNI itself is 8.
    {
      ...std('DNI', '8 digits', 'PE', 'cui', { detect: /^\d{8,9}$/, dashedCheckDigit: true }),
      check(compact) {
        const r = fromStdnum('DNI', '8 digits', validator('PE', 'cui'))(compact);
        return r.ok ? { ok: true, normalized: r.normalized.slice(0, 8) } : r;
      },
    },
    PASSPORT,
  ],
  PH: [
    fmt('TIN', '9 or 12 digits', /^(\d{9}|\d{12})$/, { detect: /^(\d{9}|\d{12})$/ }),
    fmt('PCN', '16 digits', /^\d{16}$/, { detect: /^\d{16}$/ }),
    PASSPORT,
  ],
  PY: [
    std('CI', '5 to 7 digits', 'PY', 'cedula', { detect: /^\d{5,7}$/ }),
    std('RUC', '5 to 9 digits including the check digit', 'PY', 'ruc', {
      detect: /^\d{5,9}$/,
      dashedCheckDigit: true,
    }),
  ],
  TH: [
    std('ID', '13 digits', 'TH', 'idnr', { detect: /^\d{13}$/ }),
    std('TIN', '13 digits', 'TH', 'tin', { detect: /^\d{13}$/ }),
    PASSPORT,
  ],
  TZ: [
    fmt('NIDA', '20 digits', /^\d{20}$/, { detect: /^\d{20}$/, extra: nidaProblem }),
    fmt('TIN', '9 digits', /^\d{9}$/, { detect: /^\d{9}$/ }),
    PASSPORT,
  ],
  UG: [
    fmt('NIN', '14 characters starting with CM or CF', /^C[MF][0-9A-Z]{12}$/, { detect: /^C[MF][0-9A-Z]{12}$/ }),
    fmt('TIN', '10 digits', /^\d{10}$/, { detect: /^\d{10}$/ }),
    PASSPORT,
  ],
  UY: [
    {
      // Older cédulas have 7 digits; a leading zero does not change the check digit.
      ...std('CI', '7 or 8 digits including the check digit', 'UY', 'cedula', { detect: /^\d{7,8}$/ }),
      check: fromStdnum('CI', '7 or 8 digits including the check digit', {
        validate: (v) => uyCedula.validate(/^\d{7}$/.test(v) ? `0${v}` : v),
      }),
    },
    std('RUT', '12 digits', 'UY', 'rut', { detect: /^\d{12}$/ }),
  ],
  VN: [
    fmt('CCCD', '12 digits', /^\d{12}$/, { detect: /^\d{12}$/ }),
    std('MST', '10 or 13 digits', 'VN', 'mst', { detect: /^\d{10}(\d{3})?$/ }),
    PASSPORT,
  ],
  ZA: [
    std('ID', '13 digits', 'ZA', 'idnr', { detect: /^\d{13}$/, component: 'birth date part is not a date' }),
    std('TIN', '10 digits', 'ZA', 'tin', { detect: /^\d{10}$/ }),
    PASSPORT,
  ],
};

/** Document types accepted for a country, in the order they are tried when detecting. */
export function documentTypesFor(country: string): readonly string[] {
  return (RULES[country.toUpperCase()] ?? []).map((r) => r.type);
}

function compactOf(document: string, keepDashes: boolean): string {
  const upper = document.trim().toUpperCase();
  return keepDashes ? upper.replace(/[\s./_]/g, '') : upper.replace(/[\s.\-/_]/g, '');
}

function listShapes(rules: readonly DocumentRule[]): string {
  const parts = rules.map((r) => `${r.shape} (${r.type})`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}` : parts[0]!;
}

export function validateDocument(country: string, input: string, documentType?: string): DocumentResult {
  // JSON clients sometimes send the document as a number; read it as its digits.
  const document = typeof input === 'string' ? input : String(input ?? '');
  const code = String(country ?? '').trim().toUpperCase();
  const rules = RULES[code];
  if (!rules || !getCountry(code)) return { ok: false, reason: `country '${country}' is not accepted` };
  if (!document || !document.trim()) return { ok: false, reason: 'document is required' };

  if (documentType && documentType.trim()) {
    const wanted = documentType.trim().toUpperCase();
    const rule = rules.find((r) => r.type === wanted);
    if (!rule) {
      const accepted = rules.map((r) => r.type).join(', ');
      return { ok: false, reason: `unknown document type '${documentType}' for ${code}; accepted: ${accepted}` };
    }
    return finish(rule, rule.check(compactOf(document, !!rule.keepDashes)));
  }

  // The two compact forms, each made once (every rule is tried on one of them, then checked).
  let plain: string | undefined;
  let dashed: string | undefined;
  const compact = (r: DocumentRule) => (r.keepDashes ? (dashed ??= compactOf(document, true)) : (plain ??= compactOf(document, false)));
  const candidates = rules.filter((r) => r.detect?.test(compact(r)));
  if (candidates.length === 0) {
    return { ok: false, reason: `must be ${listShapes(rules.filter((r) => r.detect))}` };
  }
  // A dash before one final character is a check digit written out, so only types that carry
  // one are meant; falling back to another would accept a mistyped number as a different id.
  const checkDigitWritten = /-\s*[0-9K]\s*$/i.test(document) && candidates.some((r) => r.dashedCheckDigit);
  if (checkDigitWritten) candidates.splice(0, candidates.length, ...candidates.filter((r) => r.dashedCheckDigit));
  let first: DocumentResult | undefined;
  for (const rule of candidates) {
    const result = finish(rule, rule.check(compact(rule)));
    if (result.ok) return result;
    first ??= result;
  }
  return first!;
}

function finish(rule: DocumentRule, check: Check): DocumentResult {
  return check.ok ? { ok: true, type: rule.type, normalized: check.normalized } : check;
}
