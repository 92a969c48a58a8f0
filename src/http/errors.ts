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
  ) {
    super(description);
  }
}

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
  featureDisabled: (d: string) => new ApiError(403, 106, 'FEATURE_NOT_ENABLED', d),
  serviceUnavailable: (d: string) => new ApiError(503, 503, 'SERVICE_UNAVAILABLE', d),
  /** The method's payment provider did not answer (docs/connectors.md): nothing was created, retry. */
  providerUnavailable: (d: string) => new ApiError(503, 520, 'PAYMENT_PROVIDER_UNAVAILABLE', d),
  /** The method's payment provider refused the charge: nothing was created. */
  providerRefused: (d: string, details?: string[]) => new ApiError(502, 521, 'PAYMENT_PROVIDER_REFUSED', d, details),
};

/**
 * A failure a service names without knowing any face (`kind`), for the kinds every resource
 * shares. Services throw their own error classes carrying such a kind (CashoutError,
 * RefundTransitionError); only http/ decides the status they answer.
 */
export type SharedFailureKind = 'invalid_transition';

function sharedKind(err: unknown): SharedFailureKind | null {
  const kind = err instanceof Error ? (err as { kind?: unknown }).kind : undefined;
  return kind === 'invalid_transition' ? kind : null;
}

/** The v3 answer to a shared service failure, or null when err is not one. */
export function v3SharedError(err: unknown): ApiError | null {
  switch (sharedKind(err)) {
    case 'invalid_transition': return v3Errors.invalidTransition((err as Error).message);
    default: return null;
  }
}

export const cashoutErrors = {
  invalidParams: (m: string) => new ApiError(400, 300, undefined, m),
  invalidCredentials: (m = 'Invalid credentials') => new ApiError(401, 401, undefined, m),
  notFound: () => new ApiError(404, 509, undefined, 'Cashout not found with this id'),
  invalidTransition: (m = 'Invalid status transition') => new ApiError(400, 510, undefined, m),
  externalIdUsed: () => new ApiError(400, 511, undefined, 'external_id already used'),
  insufficientFunds: () => new ApiError(400, 514, undefined, 'Insufficient funds'),
};
