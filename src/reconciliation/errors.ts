// What the reconciliation service can refuse, in its own words; src/http maps each kind to a
// status (src/http/errors.ts reconciliationError).
export type ReconciliationFailure =
  /** The file is not a well-formed statement of its format (`at` says where). */
  | 'malformed'
  /** No such exception. */
  | 'not_found'
  /** The exception was resolved already. */
  | 'already_resolved'
  /** The resolution asked for is not valid (unknown action, missing target or reason). */
  | 'invalid_resolution'
  /** The target named does not fit the entry (amount, currency, status, already matched). */
  | 'target_mismatch'
  /** A provider day asked for that cannot be fetched: not a day, a day not begun, a connector not configured or listing no days. */
  | 'invalid_day'
  /** Production: the statement's account is none the operator registered (own accounts, STP's ordering CLABE, CAJA_STATEMENT_ACCOUNTS). */
  | 'unknown_account';

export class ReconciliationError extends Error {
  constructor(
    readonly kind: ReconciliationFailure,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}
