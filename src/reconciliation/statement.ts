// One shape for every bank statement format (camt.053, camt.054, OFX, CNAB 240): what the
// parsers produce and everything after them reads. Pure.
//
// Amounts are exact decimal strings as the bank wrote them (normalised to a plain "123.45"),
// always positive; `direction` says which way the money moved. A reversal is the bank undoing an
// earlier movement (camt RvslInd, CNAB "devolução"): a credit reversal of a cashout is its return.

export const STATEMENT_FORMATS = ['camt053', 'camt054', 'ofx', 'cnab240'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/** The references an entry may carry; each one names at most one thing caja knows. */
export interface EntryReferences {
  /** ISO 20022 / Pix end-to-end id (Pix: E + ISPB + date + sequence). */
  endToEndId?: string;
  /** SPEI's tracking key, set by the sending bank. */
  claveRastreo?: string;
  /** The counterparty's CLABE (SPEI). */
  clabe?: string;
  /** The reference the payer quoted (caja's deposit reference, voucher reference, SPEI numeric reference). */
  depositReference?: string;
  /** Boleto "nosso número" (CNAB 240 segment T). */
  nossoNumero?: string;
  /** The bank's own id of the transaction (camt AcctSvcrRef, OFX FITID, CNAB document number). */
  bankReference?: string;
}

/** One part of a settlement batch (camt NtryDtls/TxDtls of a batched entry). */
export interface BatchPart {
  amount: string;
  refs: EntryReferences;
}

export interface StatementEntry {
  /** The bank's id of the entry when it gives one, else a digest of what identifies it. */
  key: string;
  bookingDate: string;
  valueDate: string | null;
  amount: string;
  currency: string;
  direction: 'credit' | 'debit';
  reversal: boolean;
  refs: EntryReferences;
  counterparty: { document?: string; name?: string };
  description?: string;
  /** A batched credit's parts (many-to-one settlement), when the bank lists them. */
  batch?: BatchPart[];
}

export interface ParsedStatement {
  format: StatementFormat;
  /** The bank's statement id (camt Stmt/Id or Ntfctn/Id, OFX account + period, CNAB file sequence). */
  statementRef: string;
  /** 'iban:…', 'acct:…' or 'br:bank:agency:account'. */
  account: string;
  currency: string;
  /** The day the statement covers (its last booking day when it does not say). */
  date: string | null;
  openingBalance: string | null;
  closingBalance: string | null;
  entries: StatementEntry[];
}

/** A file that is not a well-formed statement of its format: where, and what is wrong. */
export class StatementFormatError extends Error {
  constructor(
    readonly format: StatementFormat,
    /** "line 12", "Document/BkToCstmrStmt/Stmt[0]/Ntry[3]/Amt", … */
    readonly at: string,
    readonly problem: string,
  ) {
    super(`${format}: ${at}: ${problem}`);
  }
}

const DECIMAL = /^(\d{1,15})(?:[.,](\d{1,5}))?$/;

/** "1234.5" or "1234,50" → "1234.50"-style plain text (no float ever). Null when not a plain amount. */
export function plainAmount(text: string): string | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const int = m[1]!.replace(/^0+(?=\d)/, '');
  return m[2] === undefined ? int : `${int}.${m[2]}`;
}

/** A signed amount ("-12.30", "+5") as direction and magnitude. */
export function signedAmount(text: string): { amount: string; negative: boolean } | null {
  const t = text.trim();
  const negative = t.startsWith('-');
  const amount = plainAmount(t.replace(/^[+-]/, ''));
  return amount === null ? null : { amount, negative };
}

/** ISO date (YYYY-MM-DD) from YYYY-MM-DD, YYYY-MM-DDThh:mm…, YYYYMMDD[hhmmss…] or DDMMYYYY (dmy=true). */
export function isoDate(text: string, dmy = false): string | null {
  const t = text.trim();
  let y: string, mo: string, d: string;
  let m = /^(\d{4})-(\d{2})-(\d{2})/.exec(t);
  if (m) [, y, mo, d] = m as unknown as [string, string, string, string];
  else if (dmy && (m = /^(\d{2})(\d{2})(\d{4})$/.exec(t))) [, d, mo, y] = m as unknown as [string, string, string, string];
  else if ((m = /^(\d{4})(\d{2})(\d{2})/.exec(t))) [, y, mo, d] = m as unknown as [string, string, string, string];
  else return null;
  const date = new Date(`${y}-${mo}-${d}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  return `${y}-${mo}-${d}`;
}
