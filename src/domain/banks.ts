// Bank codes per country for `GET /v3/banks` and for checking the bank_code of cashouts and
// refunds. Data lives in ./banks/<country or region>.ts.
import { createHash } from 'node:crypto';
import { CM_BANKS, GH_BANKS, KE_BANKS, NG_BANKS, TZ_BANKS, UG_BANKS, ZA_BANKS } from './banks/africa.ts';
import { AR_BANKS } from './banks/ar.ts';
import { CN_BANKS, ID_BANKS, IN_BANKS, MY_BANKS, PH_BANKS, TH_BANKS, VN_BANKS } from './banks/asia.ts';
import { BR_BANKS } from './banks/br.ts';
import { CL_BANKS, CO_BANKS, EC_BANKS, PA_BANKS, PE_BANKS, PY_BANKS, UY_BANKS } from './banks/latam.ts';
import { MX_BANKS } from './banks/mx.ts';
import type { Bank } from './banks/types.ts';

export type { Bank } from './banks/types.ts';

const BANKS: Record<string, readonly Bank[]> = {
  AR: AR_BANKS,
  BR: BR_BANKS,
  CL: CL_BANKS,
  CM: CM_BANKS,
  CN: CN_BANKS,
  CO: CO_BANKS,
  EC: EC_BANKS,
  GH: GH_BANKS,
  IN: IN_BANKS,
  ID: ID_BANKS,
  KE: KE_BANKS,
  MY: MY_BANKS,
  MX: MX_BANKS,
  NG: NG_BANKS,
  PA: PA_BANKS,
  PE: PE_BANKS,
  PH: PH_BANKS,
  PY: PY_BANKS,
  TH: TH_BANKS,
  TZ: TZ_BANKS,
  UG: UG_BANKS,
  UY: UY_BANKS,
  VN: VN_BANKS,
  ZA: ZA_BANKS,
};

const ETAGS = new Map<string, string>();

/**
 * The entity tag of a country's `GET /v3/banks` answer: a hash of exactly what is served, so it
 * changes with the data files and nothing else.
 */
export function banksEtag(country: string): string {
  const cc = country.trim().toUpperCase();
  let tag = ETAGS.get(cc);
  if (!tag) {
    const body = JSON.stringify(banksForCountry(cc).map((b) => [b.code, b.name]));
    tag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    ETAGS.set(cc, tag);
  }
  return tag;
}

/** Sorted by code, the order clients show them in. */
export function banksForCountry(country: string): readonly Bank[] {
  return BANKS[country.trim().toUpperCase()] ?? [];
}

const INDEX = new Map(Object.entries(BANKS).map(([country, banks]) => [country, new Map(banks.map((b) => [b.code, b]))]));

/**
 * bank_code arrives as a number or as a string, often zero-padded ("001", "0341"). Mexican
 * integrations also send the 5-digit SPEI participant key ("40012": 40 banca múltiple, 37
 * development bank, 90 other participants), whose last three digits are the CLABE code.
 */
export function findBank(country: string, code: number | string): Bank | undefined {
  const text = String(code).trim();
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const cc = country.trim().toUpperCase();
  const spei = cc === 'MX' && /^(37|40|90)\d{3}$/.test(text) ? text.slice(2) : text;
  return INDEX.get(cc)?.get(Number(spei));
}

/** Words that say "a bank" or join a name, not which bank: left out when names are compared. */
const GENERIC_WORDS = new Set(['banco', 'bank', 'banque', 'de', 'do', 'da', 'dos', 'das', 'del', 'la', 'el', 'los', 'y', 'e', 'the', 'of', 'and', 's', 'a', 'sa', 'sau', 'ltda', 'plc', 'ltd', 'limited', 'inc', 'nv']);

function nameWords(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !GENERIC_WORDS.has(w));
}

/**
 * Whether `named` (free text a merchant wrote: a bank's code or its name) names the bank `bank`
 * of `country`: the same code (zero-padding ignored), or a name whose every distinctive word is a
 * word of the registry's name, case, accents and punctuation ignored ("Itaú", "ITAU UNIBANCO" for
 * 341 Itaú Unibanco S.A.; not "Bradesco"). Streamline refunds use it to bind x_bank_code, which
 * the refund control does not cover, to x_bank, which it does.
 */
export function namesBank(country: string, bank: Bank, named: string): boolean {
  const text = named.trim();
  if (/^\d{1,10}$/.test(text)) return findBank(country, text)?.code === bank.code;
  const words = nameWords(text);
  if (words.length === 0) return false;
  const registry = new Set(nameWords(bank.name));
  return words.every((w) => registry.has(w));
}
