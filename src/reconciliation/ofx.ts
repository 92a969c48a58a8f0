// OFX bank statements (1.x SGML and 2.x XML), read with our linear-time reader (ofx-reader.ts):
// one STMTRS (a bank account's statement) per file. Amounts stay text.
//
//   STMTRS     CURDEF, BANKACCTFROM (BANKID, BRANCHID, ACCTID), BANKTRANLIST (DTSTART, DTEND),
//              LEDGERBAL (BALAMT, DTASOF)
//   STMTTRN    TRNAMT (signed), DTPOSTED, DTUSER (value date), FITID (the bank's id: the entry
//              key), REFNUM or CHECKNUM (the reference the payer quoted), NAME, PAYEEID
//              (counterparty document), MEMO (a Pix end-to-end id is taken from it when present)
// OFX has no statement id: the account and the period (DTSTART-DTEND) name the statement.
// Errors name the element and the line of the transaction in the file.
import { OfxSyntaxError, readOfx } from './ofx-reader.ts';
import { normalizeDocument } from '../domain/payer-rule.ts';
import { isoDate, type ParsedStatement, plainAmount, signedAmount, type StatementEntry, StatementFormatError } from './statement.ts';

type Node = Record<string, unknown>;

const obj = (v: unknown): Node | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
/** A Pix end-to-end id: E, the payer's ISPB (8 digits), yyyyMMddHHmm, 11 letters or digits. */
const PIX_E2E = /\bE\d{8}\d{12}[A-Za-z0-9]{11}\b/;

function fail(at: string, problem: string): never {
  throw new StatementFormatError('ofx', at, problem);
}

/** The 1-based line of the n-th (0-based) occurrence of `tag` in the source (only for an error: one walk). */
function lineOf(source: string, tag: string, n: number): number {
  let idx = -1;
  for (let i = 0; i <= n; i++) {
    idx = source.indexOf(tag, idx + 1);
    if (idx < 0) return 0;
  }
  let line = 1;
  for (let i = 0; i < idx; i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}

export function parseOfx(source: string): ParsedStatement {
  if (!/^\s*(OFXHEADER:|<\?xml|<\?OFX|<OFX>)/i.test(source)) fail('line 1', 'not an OFX file (no OFXHEADER or <?OFX header)');
  if (!source.includes('<OFX>')) fail('line 1', 'the <OFX> element is missing');
  let parsed: Node;
  try {
    parsed = readOfx(source);
  } catch (err) {
    if (err instanceof OfxSyntaxError) fail(`line ${err.line}`, `not well-formed OFX: ${err.problem}`);
    throw err;
  }
  const stmtrs = obj(obj(obj(obj(parsed.OFX)?.BANKMSGSRSV1)?.STMTTRNRS)?.STMTRS);
  if (!stmtrs) fail('OFX/BANKMSGSRSV1/STMTTRNRS/STMTRS', 'a bank statement response (exactly one STMTRS) is required');
  const currency = str(stmtrs.CURDEF);
  if (!currency || !/^[A-Z]{3}$/.test(currency)) fail('STMTRS/CURDEF', 'a 3-letter currency is required');
  const from = obj(stmtrs.BANKACCTFROM);
  const acctId = str(from?.ACCTID);
  if (!acctId) fail('STMTRS/BANKACCTFROM/ACCTID', 'the account id is missing');
  const bankId = str(from?.BANKID);
  const branch = str(from?.BRANCHID);
  const account = bankId ? `br:${bankId}:${branch ?? ''}:${acctId}` : `acct:${acctId}`;
  const list = obj(stmtrs.BANKTRANLIST);
  if (!list) fail('STMTRS/BANKTRANLIST', 'the transaction list is missing');
  const start = str(list.DTSTART);
  const end = str(list.DTEND);
  const endDate = end ? isoDate(end) : null;
  if (!start || !isoDate(start) || !endDate) fail('STMTRS/BANKTRANLIST', 'DTSTART and DTEND must be OFX dates');
  const raw = list.STMTTRN === undefined ? [] : Array.isArray(list.STMTTRN) ? list.STMTTRN : [list.STMTTRN];
  const entries: StatementEntry[] = raw.map((t, i) => {
    // The line is looked for only when something is wrong: a walk per entry made a large file quadratic.
    function fail(field: string, problem: string): never {
      throw new StatementFormatError('ofx', `STMTTRN[${i}] (line ${lineOf(source, '<STMTTRN>', i)})${field}`, problem);
    }
    const trn = obj(t);
    if (!trn) fail('', 'is empty');
    const amountText = str(trn.TRNAMT);
    const signed = amountText ? signedAmount(amountText) : null;
    if (!signed) fail('/TRNAMT', `'${amountText ?? ''}' is not an amount`);
    if (plainAmount(signed.amount) === '0' || /^0(\.0+)?$/.test(signed.amount)) fail('/TRNAMT', 'a zero amount moves nothing');
    const posted = str(trn.DTPOSTED);
    const bookingDate = posted ? isoDate(posted) : null;
    if (!bookingDate) fail('/DTPOSTED', `'${posted ?? ''}' is not an OFX date`);
    const user = str(trn.DTUSER);
    const fitid = str(trn.FITID);
    if (!fitid) fail('/FITID', 'the transaction id is missing');
    const memo = str(trn.MEMO);
    const e2e = memo ? PIX_E2E.exec(memo)?.[0] : undefined;
    const reference = str(trn.REFNUM) ?? str(trn.CHECKNUM);
    const document = str(trn.PAYEEID);
    const name = str(trn.NAME);
    return {
      key: fitid, bookingDate, valueDate: user ? isoDate(user) : null, amount: signed.amount, currency,
      direction: signed.negative ? 'debit' : 'credit', reversal: false,
      refs: { bankReference: fitid, ...(e2e ? { endToEndId: e2e } : {}), ...(reference ? { depositReference: reference.replace(/\s+/g, '') } : {}) },
      counterparty: { ...(document ? { document: normalizeDocument(document) || document } : {}), ...(name ? { name } : {}) },
      ...(memo ? { description: memo } : {}),
    };
  });
  const balText = str(obj(stmtrs.LEDGERBAL)?.BALAMT);
  const bal = balText ? signedAmount(balText) : null;
  if (balText && !bal) fail('STMTRS/LEDGERBAL/BALAMT', `'${balText}' is not an amount`);
  return {
    format: 'ofx', statementRef: `${account}:${start}-${end}`, account, currency, date: endDate,
    openingBalance: null,
    closingBalance: bal ? `${bal.negative ? '-' : ''}${bal.amount}` : null,
    entries,
  };
}
