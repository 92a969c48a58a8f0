// What a failed call throws. caja answers v3/v5 errors as {code, description, details?, type?}
// and cashout errors as {code, message}; both become a CajaApiError with the same fields.

export class CajaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** caja answered with an error body (any non-2xx status). */
export class CajaApiError extends CajaError {
  /** caja's error code: 102 INVALID_SIGNATURE, 201 BEAN_VALIDATION_ERROR, 509 cashout not found, … */
  readonly code: number;
  /** The error name (v3/v5 only, e.g. 'INVALID_SIGNATURE'); undefined for cashout errors. */
  readonly type: string | undefined;
  /** Field messages (`payer.document: …`) and, in staging, the signature debugger's lines. */
  readonly details: string[];
  constructor(
    readonly httpStatus: number,
    body: { code?: unknown; type?: unknown; description?: unknown; message?: unknown; details?: unknown },
    readonly requestId: string | undefined,
  ) {
    const description = typeof body.description === 'string' ? body.description : typeof body.message === 'string' ? body.message : `HTTP ${httpStatus}`;
    super(`${typeof body.code === 'number' ? body.code : httpStatus} ${description}`);
    this.code = typeof body.code === 'number' ? body.code : httpStatus;
    this.type = typeof body.type === 'string' ? body.type : undefined;
    this.details = Array.isArray(body.details) ? body.details.map(String) : [];
  }
}

/** 100–105: credentials, headers, X-Date or signature; cashouts: 401. */
export class CajaAuthenticationError extends CajaApiError {}
/** 201, 300, 302, 502 and other request problems (cashouts: 300). */
export class CajaInvalidRequestError extends CajaApiError {}
/** 208 (v3) or 509 (cashouts). */
export class CajaNotFoundError extends CajaApiError {}
/** A business refusal: 304 limits, 510 transition, 511 external_id used, 514 funds, 802, 804, 104. */
export class CajaConflictError extends CajaApiError {}

export function apiError(httpStatus: number, body: Record<string, unknown>, requestId: string | undefined, face: 'v3' | 'cashout'): CajaApiError {
  const code = typeof body.code === 'number' ? body.code : httpStatus;
  if (face === 'v3' ? code >= 100 && code <= 105 : code === 401) return new CajaAuthenticationError(httpStatus, body, requestId);
  if (code === 208 || code === 509) return new CajaNotFoundError(httpStatus, body, requestId);
  if ([104, 304, 510, 511, 514, 802, 804].includes(code)) return new CajaConflictError(httpStatus, body, requestId);
  return new CajaInvalidRequestError(httpStatus, body, requestId);
}

/** The request never got an answer (after every retry): DNS, refused connection, timeout. */
export class CajaConnectionError extends CajaError {
  constructor(message: string, readonly cause: unknown) {
    super(message);
  }
}
