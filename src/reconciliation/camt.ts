// ISO 20022 bank-to-customer statements: camt.053 (end-of-day statement, with balances) and
// camt.054 (debit/credit notifications, entries only), versions 001.02 to 001.08, read with
// fast-xml-parser (numbers left as text, so "10.00" stays "10.00"). The elements read are the
// ones every version shares; docs/reconciliation.md lists them.
//
//   Stmt|Ntfctn  Id, CreDtTm, FrToDt/ToDtTm, Acct/Id/(IBAN|Othr/Id), Acct/Ccy, Bal (OPBD, CLBD)
//   Ntry         Amt@Ccy, CdtDbtInd, RvslInd, BookgDt, ValDt, AcctSvcrRef, NtryRef, AddtlNtryInf
//   TxDtls       Refs/EndToEndId, Refs/ClrSysRef (SPEI's clave de rastreo), AmtDtls/TxAmt/Amt,
//                RltdPties (debtor for a credit, creditor for a debit: name, id, account),
//                RmtInf/Strd/CdtrRefInf/Ref or RmtInf/Ustrd (the reference the payer quoted)
// A booked entry with several TxDtls is a settlement batch: each part keeps its own references.
import { createHash } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { isValidClabe } from '../domain/clabe.ts';
import { normalizeDocument } from '../domain/payer-rule.ts';
import { type EntryReferences, isoDate, type ParsedStatement, plainAmount, type StatementEntry, StatementFormatError } from './statement.ts';

type Node = Record<string, unknown>;
type Format = 'camt053' | 'camt054';

const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:(camt\.05[34])\.001\.0[2-8]$/;
const ARRAYS = new Set(['Stmt', 'Ntfctn', 'Ntry', 'Bal', 'TxDtls', 'Ustrd', 'Strd', 'NtryDtls']);

const parser = new XMLParser({
  // Callbacks get a matcher, not a path string built for every tag (a quarter of the parse).
  jPath: false,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // The five predefined entities and character references are decoded by text(), for the
  // leaves read only: the parser's own pass over every value costs 40 % of a large statement.
  // A DOCTYPE (the only way to declare other entities) is refused before parsing.
  processEntities: false,
  isArray: (name) => ARRAYS.has(name),
});

const obj = (v: unknown): Node | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : undefined);
const list = (v: unknown): Node[] => (Array.isArray(v) ? v.map(obj).filter((x): x is Node => x !== undefined) : []);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (s: string) =>
  s.includes('&')
    ? s.replace(/&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos));/g, (m, hex: string, dec: string, name: string) => {
      if (name) return ENTITIES[name]!;
      const cp = hex ? parseInt(hex, 16) : Number(dec);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : m;
    })
    : s;
/** The text of a leaf, whether it carries attributes or not. */
function text(v: unknown): string | undefined {
  const raw = typeof v === 'string' ? v : typeof obj(v)?.['#text'] === 'string' ? (obj(v)!['#text'] as string) : undefined;
  return raw === undefined ? undefined : decode(raw).trim() || undefined;
}
function at(node: Node | undefined, path: string): unknown {
  let cur: unknown = node;
  for (const part of path.split('/')) {
    const o = Array.isArray(cur) ? obj(cur[0]) : obj(cur);
    if (!o) return undefined;
    cur = o[part];
  }
  return cur;
}
const textAt = (node: Node | undefined, path: string) => text(at(node, path));

/** No camt element nests deeper than about 12 levels; beyond this a file is refused before parsing. */
export const MAX_XML_DEPTH = 64;

const lineOf = (xml: string, pos: number) => {
  let line = 1;
  for (let i = 0; i < pos; i++) if (xml.charCodeAt(i) === 10) line++;
  return line;
};
const shortened = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

/**
 * One linear pass before the parser: comments, CDATA sections and processing instructions must be
 * closed, and elements nest at most MAX_XML_DEPTH deep (the parser recurses, and threw a plain
 * Error, a 500, on 1,000 levels or an unclosed `<?`).
 */
function checkStructure(f: Format, xml: string): void {
  let depth = 0;
  let i = xml.indexOf('<');
  const unclosed = (at: number, what: string): never => {
    throw new StatementFormatError(f, `line ${lineOf(xml, at)}`, `not well-formed XML: unclosed ${what}`);
  };
  while (i >= 0) {
    let next: number;
    if (xml.startsWith('<!--', i)) {
      const end = xml.indexOf('-->', i + 4);
      if (end < 0) unclosed(i, 'comment (<!-- without -->)');
      next = end + 3;
    } else if (xml.startsWith('<![CDATA[', i)) {
      const end = xml.indexOf(']]>', i + 9);
      if (end < 0) unclosed(i, 'CDATA section (<![CDATA[ without ]]>)');
      next = end + 3;
    } else if (xml.startsWith('<?', i)) {
      const end = xml.indexOf('?>', i + 2);
      if (end < 0) unclosed(i, 'processing instruction (<? without ?>)');
      next = end + 2;
    } else {
      const end = xml.indexOf('>', i + 1);
      if (end < 0) unclosed(i, 'tag (< without >)');
      if (xml.charCodeAt(i + 1) === 0x2f) depth = Math.max(0, depth - 1);
      else if (xml.charCodeAt(end - 1) !== 0x2f && xml.charCodeAt(i + 1) !== 0x21) {
        if (++depth > MAX_XML_DEPTH) throw new StatementFormatError(f, `line ${lineOf(xml, i)}`, `elements nested deeper than ${MAX_XML_DEPTH} levels`);
      }
      next = end + 1;
    }
    i = xml.indexOf('<', next);
  }
}

/** Well-formedness first (libxml-style line and column), then the root and namespace. */
function parseDocument(xml: string, hint: Format | null): { doc: Node; format: Format } {
  const f = hint ?? 'camt053';
  if (/<!DOCTYPE/i.test(xml)) throw new StatementFormatError(f, 'line 1', 'a DOCTYPE is not allowed in a statement');
  checkStructure(f, xml);
  let parsed: Node;
  try {
    const valid = XMLValidator.validate(xml);
    if (valid !== true) throw new StatementFormatError(f, `line ${valid.err.line}${valid.err.col === undefined ? '' : `, column ${valid.err.col}`}`, `not well-formed XML: ${shortened(valid.err.msg)}`);
    parsed = parser.parse(xml) as Node;
  } catch (err) {
    if (err instanceof StatementFormatError) throw err;
    // Whatever else the parser refuses is the file's fault: a 400 naming it, never a 500.
    throw new StatementFormatError(f, 'document', `not well-formed XML: ${shortened((err as Error)?.message ?? String(err))}`);
  }
  const doc = obj(parsed.Document);
  if (!doc) throw new StatementFormatError(f, '/', 'the root element must be Document');
  // The parser drops namespace declarations with the prefixes, so the root's is read from the text.
  const ns = /<(?:[\w.-]+:)?Document\b[^>]*?\sxmlns(?::[\w.-]+)?\s*=\s*["']([^"']*)["']/.exec(xml)?.[1] ?? '';
  const m = NAMESPACE.exec(ns);
  if (!m) throw new StatementFormatError(f, 'Document', `namespace '${ns}' is not camt.053 or camt.054 (001.02 to 001.08)`);
  const format: Format = m[1] === 'camt.053' ? 'camt053' : 'camt054';
  if (hint && hint !== format) throw new StatementFormatError(hint, 'Document', `the file is ${m[1]}, not the ${hint} that was named`);
  return { doc, format };
}

function need(format: Format, where: string, value: string | undefined, what: string): string {
  if (value === undefined) throw new StatementFormatError(format, where, `${what} is missing`);
  return value;
}

function accountOf(format: Format, where: string, acct: Node | undefined): string {
  const iban = textAt(acct, 'Id/IBAN');
  if (iban) return `iban:${iban.replace(/\s+/g, '').toUpperCase()}`;
  return `acct:${need(format, `${where}/Acct/Id`, textAt(acct, 'Id/Othr/Id'), 'IBAN or Othr/Id')}`;
}

function amountOf(format: Format, where: string, amt: unknown): { amount: string; currency: string } {
  const value = need(format, where, text(amt), 'Amt');
  const amount = plainAmount(value);
  if (amount === null || !/^\d+(\.\d{1,5})?$/.test(value)) throw new StatementFormatError(format, where, `'${value}' is not an ISO 20022 amount`);
  const currency = obj(amt)?.['@Ccy'];
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) throw new StatementFormatError(format, where, 'the Ccy attribute must be a 3-letter currency');
  return { amount, currency };
}

function dateOf(format: Format, where: string, node: unknown): string {
  const raw = need(format, where, textAt(obj(node), 'Dt') ?? textAt(obj(node), 'DtTm'), 'Dt or DtTm');
  const d = isoDate(raw);
  if (!d) throw new StatementFormatError(format, where, `'${raw}' is not a date`);
  return d;
}

/** The references and counterparty one TxDtls carries. */
function detailsOf(tx: Node | undefined, direction: 'credit' | 'debit'): { refs: EntryReferences; counterparty: { document?: string; name?: string } } {
  const refs: EntryReferences = {};
  const e2e = textAt(tx, 'Refs/EndToEndId');
  if (e2e && e2e !== 'NOTPROVIDED') refs.endToEndId = e2e;
  const clr = textAt(tx, 'Refs/ClrSysRef');
  if (clr) refs.claveRastreo = clr;
  // Ustrd repeats (up to 140 characters a line): the first line with text is the payer's reference.
  const unstructured = [at(tx, 'RmtInf/Ustrd')].flat().map(text).find((line) => line !== undefined);
  const remittance = textAt(tx, 'RmtInf/Strd/CdtrRefInf/Ref') ?? unstructured;
  if (remittance) refs.depositReference = remittance.replace(/\s+/g, '');
  const party = direction === 'credit' ? 'Dbtr' : 'Cdtr';
  const acct = textAt(tx, `RltdPties/${party}Acct/Id/Othr/Id`);
  if (acct && isValidClabe(acct)) refs.clabe = acct;
  const document = textAt(tx, `RltdPties/${party}/Id/PrvtId/Othr/Id`) ?? textAt(tx, `RltdPties/${party}/Id/OrgId/Othr/Id`);
  const name = textAt(tx, `RltdPties/${party}/Nm`);
  return { refs, counterparty: { ...(document ? { document: normalizeDocument(document) || document } : {}), ...(name ? { name } : {}) } };
}

function entryOf(format: Format, where: string, n: Node, statementRef: string, index: number): StatementEntry {
  const { amount, currency } = amountOf(format, `${where}/Amt`, n.Amt);
  const ind = need(format, `${where}/CdtDbtInd`, text(n.CdtDbtInd), 'CdtDbtInd');
  if (ind !== 'CRDT' && ind !== 'DBIT') throw new StatementFormatError(format, `${where}/CdtDbtInd`, `'${ind}' is not CRDT or DBIT`);
  const direction = ind === 'CRDT' ? 'credit' : 'debit';
  const rvsl = text(n.RvslInd);
  if (rvsl !== undefined && rvsl !== 'true' && rvsl !== 'false') throw new StatementFormatError(format, `${where}/RvslInd`, `'${rvsl}' is not true or false`);
  const bookingDate = dateOf(format, `${where}/BookgDt`, n.BookgDt);
  const valueDate = n.ValDt === undefined ? null : dateOf(format, `${where}/ValDt`, n.ValDt);
  const txs = list(at(n, 'NtryDtls/TxDtls'));
  const first = detailsOf(txs[0], direction);
  const acctSvcrRef = text(n.AcctSvcrRef);
  const refs: EntryReferences = { ...(txs.length > 1 ? {} : first.refs), ...(acctSvcrRef ? { bankReference: acctSvcrRef } : {}) };
  const entry: StatementEntry = {
    key: acctSvcrRef ?? text(n.NtryRef) ?? createHash('sha256').update(`${statementRef}#${index}`).digest('hex').slice(0, 32),
    bookingDate, valueDate, amount, currency, direction, reversal: rvsl === 'true', refs,
    counterparty: txs.length > 1 ? {} : first.counterparty,
    ...(text(n.AddtlNtryInf) ? { description: text(n.AddtlNtryInf) } : {}),
  };
  if (txs.length > 1) {
    entry.batch = txs.map((tx, i) => {
      const part = amountOf(format, `${where}/NtryDtls/TxDtls[${i}]/AmtDtls/TxAmt/Amt`, at(tx, 'AmtDtls/TxAmt/Amt'));
      return { amount: part.amount, refs: detailsOf(tx, direction).refs };
    });
  }
  return entry;
}

function balanceOf(format: Format, where: string, bals: Node[], code: string): string | null {
  const i = bals.findIndex((b) => textAt(b, 'Tp/CdOrPrtry/Cd') === code);
  if (i < 0) return null;
  const b = bals[i]!;
  const { amount } = amountOf(format, `${where}/Bal[${i}]/Amt`, b.Amt);
  const ind = text(b.CdtDbtInd);
  if (ind !== 'CRDT' && ind !== 'DBIT') throw new StatementFormatError(format, `${where}/Bal[${i}]/CdtDbtInd`, 'must be CRDT or DBIT');
  return ind === 'DBIT' && amount !== '0' ? `-${amount}` : amount;
}

/** Parses a camt.053 or camt.054 file; `hint` is the format the caller named, if any. */
export function parseCamt(xml: string, hint: Format | null = null): ParsedStatement {
  const { doc, format } = parseDocument(xml, hint);
  const rootName = format === 'camt053' ? 'BkToCstmrStmt' : 'BkToCstmrDbtCdtNtfctn';
  const partName = format === 'camt053' ? 'Stmt' : 'Ntfctn';
  const root = obj(doc[rootName]);
  if (!root) throw new StatementFormatError(format, 'Document', `${rootName} is missing`);
  const parts = list(root[partName]);
  // One statement per file is what banks send per account; several would need several imports.
  if (parts.length !== 1) throw new StatementFormatError(format, `Document/${rootName}`, `exactly one ${partName} is expected, found ${parts.length}`);
  const s = parts[0]!;
  const where = `Document/${rootName}/${partName}`;
  const statementRef = need(format, `${where}/Id`, text(s.Id), 'Id');
  const account = accountOf(format, where, obj(s.Acct));
  const entries = list(s.Ntry).map((n, i) => entryOf(format, `${where}/Ntry[${i}]`, n, statementRef, i));
  const declared = textAt(obj(s.Acct), 'Ccy');
  const currency = declared ?? entries[0]?.currency;
  if (!currency) throw new StatementFormatError(format, `${where}/Acct/Ccy`, 'the account currency is missing and no entry names one');
  const wrong = entries.findIndex((e) => e.currency !== currency);
  if (wrong >= 0) throw new StatementFormatError(format, `${where}/Ntry[${wrong}]/Amt`, `currency ${entries[wrong]!.currency} differs from the account's ${currency}`);
  const bals = list(s.Bal);
  const toDate = textAt(s, 'FrToDt/ToDtTm');
  const lastBooking = entries.reduce<string | null>((m, e) => (m === null || e.bookingDate > m ? e.bookingDate : m), null);
  return {
    format, statementRef, account, currency,
    date: (toDate ? isoDate(toDate) : null) ?? lastBooking,
    openingBalance: balanceOf(format, where, bals, 'OPBD'),
    closingBalance: balanceOf(format, where, bals, 'CLBD'),
    entries,
  };
}
