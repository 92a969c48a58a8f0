// Which parser reads a file: the format named by the caller (?format=…) or its Content-Type,
// and the one entry point every caller uses (API, CLI, bench).
import { parseCamt } from './camt.ts';
import { parseCnab240 } from './cnab240.ts';
import { parseOfx } from './ofx.ts';
import { type ParsedStatement, STATEMENT_FORMATS, type StatementFormat, StatementFormatError } from './statement.ts';

export function isStatementFormat(v: unknown): v is StatementFormat {
  return typeof v === 'string' && (STATEMENT_FORMATS as readonly string[]).includes(v);
}

/**
 * The format a request names: `?format=` wins; else application/xml (camt, the version read from
 * the file), application/x-ofx, text/plain (CNAB 240). 'camt' means "camt.053 or camt.054".
 */
export function formatFromRequest(query: string | undefined, contentType: string | undefined): StatementFormat | 'camt' | null {
  if (query !== undefined) return isStatementFormat(query) ? query : null;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/xml' || type === 'text/xml') return 'camt';
  if (type === 'application/x-ofx' || type === 'application/ofx') return 'ofx';
  if (type === 'text/plain') return 'cnab240';
  return null;
}

/** Parses a whole file; throws StatementFormatError (where and what) and reads nothing else. */
export function parseStatement(format: StatementFormat | 'camt', bytes: Buffer | string): ParsedStatement {
  const text = typeof bytes === 'string' ? bytes : decode(bytes, format);
  const parsed = format === 'camt' || format === 'camt053' || format === 'camt054'
    ? parseCamt(text, format === 'camt' ? null : format)
    : format === 'ofx' ? parseOfx(text) : parseCnab240(text);
  if (parsed.entries.length === 0 && parsed.closingBalance === null) {
    throw new StatementFormatError(parsed.format, 'statement', 'neither entries nor a closing balance: nothing to reconcile');
  }
  return parsed;
}

/**
 * UTF-8 unless the file says otherwise: OFX 1.x declares CHARSET:1252 and CNAB files are
 * Latin-1 by custom, so invalid UTF-8 there is read as windows-1252.
 */
function decode(bytes: Buffer, format: StatementFormat | 'camt'): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    if (format === 'ofx' || format === 'cnab240') return new TextDecoder('windows-1252').decode(bytes);
    throw new StatementFormatError(format === 'camt' ? 'camt053' : format, 'byte stream', 'the file is not valid UTF-8');
  }
}
