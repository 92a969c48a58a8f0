// The one paging rule of the merchant lists (deposits and cashouts, in the panel, its CSV exports
// and GET /v3/deposits): the filters they share (status, country, a creation date range, the
// search box), newest first, the cursor is the last id seen (`before`), and a page fetches one
// row more than asked to know whether another follows. The search box's text also names a row by
// its id when it is all digits.
import { parseId } from '../domain/ids.ts';
import type { Queryable } from './db.ts';

/** What every merchant list is filtered by. */
export interface ListFilter<Status extends string = string> {
  status?: Status;
  country?: string;
  from?: Date;
  to?: Date;
  search?: string;
  before?: number;
}

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
 * One page of a merchant's rows of `table`, newest first, at most `limit` of them. `matches`
 * writes the search condition from the placeholders of the search text and of the id it names;
 * `equal` adds filters on more columns (an undefined value is no filter).
 */
export async function merchantListPage<T extends { id: number }>(
  q: Queryable,
  table: 'deposits' | 'cashouts',
  merchantId: number,
  f: ListFilter,
  limit: number,
  matches: (text: string, id: string) => string,
  equal: Record<string, string | undefined> = {},
): Promise<Page<T>> {
  const search = searchTerms(f.search);
  const params: unknown[] = [merchantId, f.status ?? null, f.country ?? null, f.from ?? null, f.to ?? null, search.text, search.id];
  const more = Object.entries(equal).map(([column, value]) => {
    params.push(value ?? null);
    return ` AND ($${params.length}::text IS NULL OR ${column} = $${params.length})`;
  });
  params.push(f.before ?? null, limit + 1);
  const cursor = params.length - 1;
  const { rows } = await q.query<T>(
    `SELECT * FROM ${table}
     WHERE merchant_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR country = $3)
       AND ($4::timestamptz IS NULL OR created_at >= $4) AND ($5::timestamptz IS NULL OR created_at < $5)
       AND ($6::text IS NULL OR (${matches('$6', '$7')}))${more.join('')}
       AND ($${cursor}::integer IS NULL OR id < $${cursor})
     ORDER BY id DESC LIMIT $${cursor + 1}`,
    params,
  );
  return { rows: rows.slice(0, limit), next: rows.length > limit ? rows[limit - 1]!.id : null };
}
