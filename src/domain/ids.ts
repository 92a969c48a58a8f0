// The one rule for ids: what a serial column (deposits, refunds, merchants, cashouts) or a
// bigserial one (notifications, events, ledger rows) can hold, and the one parser of ids written
// as text. http/params.ts applies it to every route's path id and paging values; services and
// faces that read an id from a body, a form or a search box use the same functions.

/** serial columns: the ids handed out stay below 2^31. */
export const INT_ID_MAX = 2147483647;
/** bigserial columns, as far as a JS number stays exact. */
export const BIGINT_ID_MAX = Number.MAX_SAFE_INTEGER;

/** A JSON schema for a serial id (a route's `:id` or a body field). */
export const INT_ID_SCHEMA = { type: 'integer', minimum: 1, maximum: INT_ID_MAX } as const;

/** An id of a serial column: an integer from 1 to INT_ID_MAX. */
export function isIntId(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= INT_ID_MAX;
}

/** A positive integer written in plain digits, at most `max`; null otherwise. */
export function parseId(raw: unknown, max = INT_ID_MAX): number | null {
  if (typeof raw !== 'string' || !/^\d{1,16}$/.test(raw)) return null;
  const n = Number(raw);
  return n >= 1 && n <= max ? n : null;
}

/** A serial id sent in JSON as a number or as its digits in a string; null otherwise. */
export function readIntId(v: unknown): number | null {
  return typeof v === 'string' ? parseId(v) : isIntId(v) ? v : null;
}
