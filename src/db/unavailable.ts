// The database could not be reached, or stopped answering, or is not (or no longer) the primary:
// a failure of the store, not of the request. Failover (docs/operations.md, High availability)
// produces all of these for a few seconds: the old primary's connections are cut (57P01, or
// ECONNRESET / "Connection terminated unexpectedly" when the server is killed), new connections
// are refused until the standby is promoted, a pooler may still hand out a connection to a node
// that is now read-only (25006), and a partition that holds packets makes a query wait until its
// timeout. Services let this error through untouched; src/http/ answers it with a retryable 503.
//
// What the request did is unknown when the connection was lost at COMMIT: the client must not be
// told it failed for good (no 4xx) nor that it worked (no 2xx). A retry with the same idempotency
// key, invoice_id or external_id finds the committed write, or makes it.

/**
 * What a client is told to wait (Retry-After) before sending the request again: a failover takes
 * about 10 s, and a client retrying every 2 s finds the new primary soon after it is promoted.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

export class DatabaseUnavailableError extends Error {
  /** The service failure kind every face maps (src/http/errors.ts). */
  readonly kind = 'database_unavailable' as const;
  constructor(readonly reason: string, options?: { cause?: unknown }) {
    super(`The database is unavailable (${reason})`, options);
    this.name = 'DatabaseUnavailableError';
  }
}

// SQLSTATEs that say nothing about the request and everything about the server or the link to it.
const UNAVAILABLE_STATES: Record<string, string> = {
  '57P01': 'admin_shutdown',
  '57P02': 'crash_shutdown',
  '57P03': 'cannot_connect_now',
  '57P04': 'database_dropped',
  '57014': 'statement_timeout', // query_canceled: statement_timeout, or a cancel on shutdown
  '55P03': 'lock_timeout', // lock_not_available: nothing in caja asks NOWAIT, so lock_timeout
  '25006': 'read_only_transaction', // the node was demoted, or is a standby
  '25P03': 'idle_in_transaction_timeout',
  '53300': 'too_many_connections',
  '53000': 'insufficient_resources',
  '53100': 'disk_full',
  '53200': 'out_of_memory',
  '58000': 'system_error',
  '58030': 'io_error',
  '40003': 'statement_completion_unknown',
};

// Socket errors of the link (node's err.code), not SQLSTATEs.
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN']);

// node-pg and pg-pool report a lost or timed-out connection with these messages and no code.
const DRIVER_MESSAGES = [
  /^Connection terminated/i, // "… unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect/i, // pg-pool: no free connection in time
  /^timeout expired/i, // pg: opening a connection took too long
  /^Query read timeout/i,
  /is not queryable/i, // "Client has encountered a connection error and is not queryable"
  /^Cannot use a pool after calling end/i,
  /server closed the connection unexpectedly/i,
  /^terminating connection/i,
];

/**
 * Why err is a database-unavailable failure, or null when it is not one (a constraint, a syntax
 * error, a service's own refusal). Class 08 is every connection exception (08000, 08003, 08006,
 * 08001, 08004, 08P01 — pgbouncer's "server conn crashed?", "query_wait_timeout" among them).
 */
export function unavailableReason(err: unknown): string | null {
  if (err instanceof DatabaseUnavailableError) return err.reason;
  if (!err || typeof err !== 'object') return null;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_STATES[code]) return UNAVAILABLE_STATES[code]!;
  if (/^08[0-9A-Z]{3}$/.test(code)) return `connection_exception ${code}`;
  if (SOCKET_CODES.has(code)) return code;
  const message = typeof e.message === 'string' ? e.message : '';
  if (DRIVER_MESSAGES.some((re) => re.test(message))) return message;
  return null;
}

/** err as a DatabaseUnavailableError when it is one (keeping the driver's error as cause), else err unchanged. */
export function asUnavailable(err: unknown): unknown {
  if (err instanceof DatabaseUnavailableError) return err;
  const reason = unavailableReason(err);
  return reason === null ? err : new DatabaseUnavailableError(reason, { cause: err });
}

export function isDatabaseUnavailable(err: unknown): err is DatabaseUnavailableError {
  return err instanceof DatabaseUnavailableError;
}
