// The one paging rule of the merchant lists (deposits and cashouts, in the panel, its CSV exports
// and GET /v3/deposits): newest first, the cursor is the last id seen (`before`), a page fetches
// one row more than asked to know whether another follows; and the search box's text, which
// also names a row by its id when it is all digits.
import { parseId } from '../domain/ids.ts';
import type { Queryable } from './db.ts';

export interface Page<T> {
  rows: T[];
  /** Pass as `before` for the next (older) page; null at the end. */
  next: number | null;
}

/** The search box: its trimmed text (null when empty) and the id it names, if any. */
export function searchTerms(search: string | undefined): { text: string | null; id: number | null } {
  const text = search?.trim() || null;
  return { text, id: parseId(text) };
}

/**
 * One page of `table`'s rows matching `conditions` (over `params`, $1..$n), newest first, older
 * than `before` when given, at most `limit` of them.
 */
export async function newestFirst<T extends { id: number }>(
  q: Queryable,
  table: 'deposits' | 'cashouts',
  conditions: string,
  params: unknown[],
  before: number | undefined,
  limit: number,
): Promise<Page<T>> {
  const cursor = params.length + 1;
  const { rows } = await q.query<T>(
    `SELECT * FROM ${table} WHERE ${conditions} AND ($${cursor}::integer IS NULL OR id < $${cursor}) ORDER BY id DESC LIMIT $${cursor + 1}`,
    [...params, before ?? null, limit + 1],
  );
  return { rows: rows.slice(0, limit), next: rows.length > limit ? rows[limit - 1]!.id : null };
}
