// `caja ledger check --against FILE`, loaded only for that command: the statement parsers (XML,
// OFX, CNAB) are not needed by any other.
import { readFileSync } from 'node:fs';
import type { Db } from '../db/db.ts';
import { checkAgainstStatement, type StatementCheck } from '../reconciliation/check.ts';
import { isStatementFormat, parseStatement } from '../reconciliation/formats.ts';
import { StatementFormatError, type StatementFormat } from '../reconciliation/statement.ts';
import { UsageError } from './usage.ts';

/** --format, or the file's extension: .xml camt (version from the file), .ofx OFX, else CNAB 240. */
function statementFormatOf(file: string, named: string | undefined): StatementFormat | 'camt' {
  if (named !== undefined) {
    if (!isStatementFormat(named)) throw new UsageError(`--format must be camt053, camt054, ofx or cnab240, not '${named}'`);
    return named;
  }
  if (/\.xml$/i.test(file)) return 'camt';
  if (/\.ofx$/i.test(file)) return 'ofx';
  return 'cnab240';
}

/** The bank's balance on the statement's day against the ledger's bank account, and the open exceptions. */
export async function checkAgainstFile(db: Db, file: string, format: string | undefined): Promise<StatementCheck> {
  let statement;
  try {
    statement = parseStatement(statementFormatOf(file, format), readFileSync(file));
  } catch (err) {
    if (err instanceof StatementFormatError) throw new UsageError(`${file}: ${err.message}`);
    throw err;
  }
  return checkAgainstStatement(db, statement);
}
