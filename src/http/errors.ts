// The error tables, one per face: what each service failure answers there (status, code, text).
//   v3 (and v5, admin, connectors' routes): v3Errors, v3DepositError, v3SharedError
//   streamline: streamlineDepositError (the invoice endpoint's codes; all else is 300)
//   cashout-style {code, message}: cashoutErrors
//   pages (checkout, pay, panel): pageDepositError
//
// Errors carry what every face needs to render them in its own format; each face's error
// handler decides the shape (v3 {code, description, type, details}, cashouts {code, message},
// streamline status/desc/error_code).
export class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    readonly type: string | undefined,
    description: string,
    readonly details?: string[],
    /** Sent as Retry-After: the failure is transient and the same request may be sent again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
  }
}

import type { DepositError, DepositFailure } from '../deposits/errors.ts';
import type { ReconciliationError, ReconciliationFailure } from '../reconciliation/errors.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/unavailable.ts';

const UNAVAILABLE_TEXT = 'The service is temporarily unavailable; send the same request again (same idempotency key, invoice_id or external_id) in a moment';

export const v3Errors = {
  invalidCredentials: (d = 'Invalid credentials', details?: string[]) => new ApiError(401, 100, 'INVALID_CREDENTIALS', d, details),
  missingHeader: (name: string) => new ApiError(400, 101, 'MISSING_REQUIRED_HEADER', `Missing required header: ${name}`),
  invalidSignature: (d = 'Invalid signature', details?: string[]) => new ApiError(400, 102, 'INVALID_SIGNATURE', d, details),
  invalidDateRange: (d: string) => new ApiError(400, 103, 'INVALID_DATE_RANGE', d),
  idempotencyKeyUsed: () => new ApiError(400, 104, 'IDEMPOTENCY_KEY_ALREADY_USED', 'The idempotency key was already used with a different request'),
  requestInFlight: () => new ApiError(409, 104, 'IDEMPOTENCY_KEY_ALREADY_USED', 'An identical signed request is being processed; it runs once'),
  emptyHeader: (name: string) => new ApiError(400, 105, 'EMPTY_HEADER_VALUE', `Empty value in header: ${name}`),
  validation: (details: string[], d = 'Invalid request fields') => new ApiError(400, 201, 'BEAN_VALIDATION_ERROR', d, details),
  notFound: (d = 'Resource not found') => new ApiError(404, 208, 'RESOURCE_NOT_FOUND', d),
  /** The resource is not in a state that allows this (deposits, refunds, cashouts alike). */
  invalidTransition: (d: string) => new ApiError(409, 510, 'INVALID_STATUS_TRANSITION', d),
  invalidDocument: (d = 'Invalid document', details?: string[]) => new ApiError(400, 300, 'INVALID_DOCUMENT', d, details),
  invalidBankAccount: (d = 'Invalid bank account', details?: string[]) => new ApiError(400, 302, 'INVALID_BANK_ACCOUNT', d, details),
  userLimitExceeded: (kind: 'TRANSACTION' | 'DAILY' | 'MONTHLY') => new ApiError(400, 304, 'USER_LIMIT_EXCEEDED', `User limit exceeded: ${kind}`),
  invalidBody: (d = 'Malformed request body') => new ApiError(400, 502, 'INVALID_REQUEST_BODY', d),
  invalidAmountToRefund: (d = 'Invalid amount to refund') => new ApiError(400, 802, 'INVALID_AMOUNT_TO_REFUND', d),
  missingBankAccount: () => new ApiError(400, 804, 'MISSING_BANK_ACCOUNT', 'bank_account is required to refund this deposit'),
  insufficientFunds: (d = 'Insufficient funds in the available balance') => new ApiError(400, 514, 'INSUFFICIENT_FUNDS', d),
  /** Authenticated, but this caller may not make this call (an admin token without the scope). */
  forbidden: (d: string) => new ApiError(403, 107, 'FORBIDDEN', d),
  featureDisabled: (d: string) => new ApiError(403, 106, 'FEATURE_NOT_ENABLED', d),
  serviceUnavailable: (d: string) => new ApiError(503, 503, 'SERVICE_UNAVAILABLE', d),
  /** The database did not answer or is not the primary: the request may or may not have been applied; retry it. */
  databaseUnavailable: () => new ApiError(503, 503, 'SERVICE_UNAVAILABLE', UNAVAILABLE_TEXT, undefined, DATABASE_RETRY_AFTER_SECONDS),
  /** The method's payment provider did not answer (docs/connectors.md): nothing was created, retry. */
  providerUnavailable: (d: string) => new ApiError(503, 520, 'PAYMENT_PROVIDER_UNAVAILABLE', d),
  /** The method's payment provider refused the charge: nothing was created. */
  providerRefused: (d: string, details?: string[]) => new ApiError(502, 521, 'PAYMENT_PROVIDER_REFUSED', d, details),
  /** A rate the request needs is older than CAJA_RATES_MAX_AGE_HOURS (docs/exchange-rates.md): nothing was created, retry later. */
  rateStale: (d: string) => new ApiError(503, 522, 'EXCHANGE_RATE_STALE', d),
  unsupportedMediaType: () => new ApiError(415, 502, 'INVALID_REQUEST_BODY', 'Content-Type must be application/json'),
  /** A bank statement upload whose format cannot be told (Content-Type and ?format). */
  unsupportedStatementType: () =>
    new ApiError(415, 502, 'INVALID_REQUEST_BODY', 'Send the statement as application/xml (camt.053/054), application/x-ofx (OFX) or text/plain (CNAB 240), or name it with ?format=camt053|camt054|ofx|cnab240'),
  /** A bank statement that is not a well-formed file of its format: where and what, nothing imported. */
  invalidStatement: (d: string, details: string[]) => new ApiError(400, 502, 'INVALID_STATEMENT', d, details),
  bodyTooLarge: () => new ApiError(413, 502, 'INVALID_REQUEST_BODY', 'Request body is too large'),
  /** Any other 4xx the framework raised: its status, as invalid body. */
  refused: (status: number, d: string) => new ApiError(status, 502, 'INVALID_REQUEST_BODY', d),
  internal: () => new ApiError(500, 999, 'INTERNAL_ERROR', 'Internal error'),
};

/** The v3 table of admin-token failures (src/operators/tokens.ts). */
export function v3TokenError(kind: 'name_used' | 'not_found' | 'reserved_name' | 'beyond_scopes', message: string): ApiError {
  if (kind === 'name_used' || kind === 'reserved_name') return v3Errors.validation([`name: ${message}`]);
  return kind === 'beyond_scopes' ? v3Errors.forbidden(message) : v3Errors.notFound(message);
}

/** The v3 table of reconciliation failures (admin face). */
const V3_RECONCILIATION: Record<ReconciliationFailure, (e: ReconciliationError) => ApiError> = {
  malformed: (e) => v3Errors.invalidStatement(`Malformed statement, nothing imported: ${e.message}`, e.details),
  not_found: (e) => v3Errors.notFound(e.message),
  already_resolved: (e) => v3Errors.invalidTransition(e.message),
  invalid_resolution: (e) => v3Errors.validation(e.details, e.message),
  target_mismatch: (e) => v3Errors.invalidTransition(e.message),
  unknown_account: (e) => v3Errors.validation(e.details, e.message),
  invalid_day: (e) => v3Errors.validation(e.details, e.message),
};

export function v3ReconciliationError(err: ReconciliationError): ApiError {
  return V3_RECONCILIATION[err.kind](err);
}

/** What the provider said when it refused or did not answer a charge, for every face. */
function providerText(err: DepositError): string {
  const p = err.facts.provider;
  if (!p) return err.message;
  if (err.kind === 'provider_refused') {
    const said = [p.error.provider?.title, p.error.provider?.detail].filter(Boolean).join(': ');
    return `${p.who} refused the charge${said ? ` (${said})` : ''}; nothing was created`;
  }
  return `${p.who} is not answering (${p.error.kind}); nothing was created, retry later`;
}

/**
 * The v3 table of deposit failures. 510 is HTTP 409 on this face (deposits, refunds and cashouts
 * alike; docs/contract.md).
 */
const V3_DEPOSIT: Record<DepositFailure, (e: DepositError) => ApiError> = {
  invoice_used: () => v3Errors.validation(['invoice_id: already used']),
  user_limit: (e) => v3Errors.userLimitExceeded(e.facts.limit ?? 'TRANSACTION'),
  idempotency_key_used: () => v3Errors.idempotencyKeyUsed(),
  not_found: () => v3Errors.notFound('Deposit not found'),
  invalid_transition: (e) => v3Errors.invalidTransition(e.message),
  provider_unavailable: (e) => v3Errors.providerUnavailable(providerText(e)),
  provider_refused: (e) => v3Errors.providerRefused(providerText(e)),
  validation: (e) => v3Errors.validation(e.facts.details ?? [], e.message),
  rate_stale: (e) => v3Errors.rateStale(e.message),
};

export function v3DepositError(err: DepositError): ApiError {
  return V3_DEPOSIT[err.kind](err);
}

/** The streamline invoice endpoint's own codes (docs/streamline.md). */
export const INVOICE_ERROR_CODES = { invoiceUsed: 303, userLimit: 304, invalidDocument: 310, invalidUrl: 311, providerUnavailable: 320, providerRefused: 321, rateStale: 322 } as const;

/**
 * The streamline table of deposit failures (answered with HTTP 200, as every streamline error):
 * the invoice endpoint's codes, and 300 (invalid parameter) for anything else, in the v3 text.
 */
export function streamlineDepositError(err: DepositError, invoice: string | undefined): { code: number; message: string } {
  switch (err.kind) {
    case 'user_limit': return { code: INVOICE_ERROR_CODES.userLimit, message: v3DepositError(err).message };
    case 'invoice_used': return { code: INVOICE_ERROR_CODES.invoiceUsed, message: `x_invoice already used: ${invoice}` };
    case 'provider_unavailable': return { code: INVOICE_ERROR_CODES.providerUnavailable, message: providerText(err) };
    case 'provider_refused': return { code: INVOICE_ERROR_CODES.providerRefused, message: providerText(err) };
    case 'rate_stale': return { code: INVOICE_ERROR_CODES.rateStale, message: err.message };
    default: {
      const e = v3DepositError(err);
      return { code: 300, message: e.details?.length ? `Invalid parameter: ${e.details.join('; ')}` : e.message };
    }
  }
}

/**
 * The pages' table (pay page, panel): a deposit failure shows the v3 description on a page of the
 * v3 status, so a panel operator reads what the API would have said.
 */
export function pageDepositError(err: DepositError): { status: number; message: string } {
  const e = v3DepositError(err);
  return { status: e.httpStatus, message: e.message };
}

/**
 * A failure a service names without knowing any face (`kind`), for the kinds every resource
 * shares. Services throw their own error classes carrying such a kind (CashoutError,
 * RefundTransitionError); only http/ decides the status they answer.
 */
export type SharedFailureKind = 'invalid_transition' | 'database_unavailable';

function sharedKind(err: unknown): SharedFailureKind | null {
  // The store's failure (src/db/unavailable.ts) reaches here from any service, unchanged.
  if (isDatabaseUnavailable(err)) return 'database_unavailable';
  const kind = err instanceof Error ? (err as { kind?: unknown }).kind : undefined;
  return kind === 'invalid_transition' ? kind : null;
}

/** The v3 answer to a shared service failure, or null when err is not one. */
export function v3SharedError(err: unknown): ApiError | null {
  switch (sharedKind(err)) {
    case 'invalid_transition': return v3Errors.invalidTransition((err as Error).message);
    case 'database_unavailable': return v3Errors.databaseUnavailable();
    default: return null;
  }
}

/**
 * The answer of the faces that render their own bodies (streamline, pages) when the database is
 * unavailable: HTTP 503 with Retry-After on every face — streamline included, which otherwise
 * answers errors with 200, because a 200 to a write that may not have been applied would be
 * read as an answer. Null when err is something else.
 */
export function unavailableAnswer(err: unknown): { status: 503; retryAfterSeconds: number; message: string; streamlineCode: number } | null {
  if (sharedKind(err) !== 'database_unavailable') return null;
  return { status: 503, retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS, message: UNAVAILABLE_TEXT, streamlineCode: 503 };
}

/**
 * The cashout face's {code, message} table. 510 stays HTTP 400 here, unlike v3's 409: the cashout
 * API's published contract pins it (docs/cashouts.md, its error table and examples).
 */
export const cashoutErrors = {
  invalidParams: (m: string) => new ApiError(400, 300, undefined, m),
  invalidCredentials: (m = 'Invalid credentials') => new ApiError(401, 401, undefined, m),
  notFound: () => new ApiError(404, 509, undefined, 'Cashout not found with this id'),
  invalidTransition: (m = 'Invalid status transition') => new ApiError(400, 510, undefined, m),
  externalIdUsed: () => new ApiError(400, 511, undefined, 'external_id already used'),
  insufficientFunds: () => new ApiError(400, 514, undefined, 'Insufficient funds'),
  /** The rate the cashout needs is older than CAJA_RATES_MAX_AGE_HOURS: nothing was created, retry later. */
  rateStale: (m: string) => new ApiError(503, 522, undefined, m),
  /** Any other 4xx the framework raised: its status, as invalid params. */
  refused: (status: number, m: string) => new ApiError(status, 300, undefined, m),
  databaseUnavailable: () => new ApiError(503, 503, undefined, UNAVAILABLE_TEXT, undefined, DATABASE_RETRY_AFTER_SECONDS),
  internal: () => new ApiError(500, 999, undefined, 'Internal error'),
};
