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
 * writes the search condition from the placeholders of the search text and of the id it names
 * (null when the text names no id);
 * `equal` adds filters on more columns (an undefined value is no filter).
 */
export async function merchantListPage<T extends { id: number }>(
  q: Queryable,
  table: 'deposits' | 'cashouts',
  merchantId: number,
  f: ListFilter,
  limit: number,
  matches: (text: string, id: string | null) => string,
  equal: Record<string, string | undefined> = {},
): Promise<Page<T>> {
  // Only the conditions a filter asks for are written: a generic "($n IS NULL OR column = $n)"
  // hides from the planner which indexes apply, and it walked the primary key backwards over
  // every merchant's rows to find one invoice (docs/performance.md, "At scale").
  const params: unknown[] = [merchantId];
  const $ = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = ['merchant_id = $1'];
  if (f.status) where.push(`status = ${$(f.status)}`);
  if (f.country) where.push(`country = ${$(f.country)}`);
  if (f.from) where.push(`created_at >= ${$(f.from)}`);
  if (f.to) where.push(`created_at < ${$(f.to)}`);
  const search = searchTerms(f.search);
  if (search.text !== null) where.push(`(${matches($(search.text), search.id === null ? null : $(search.id))})`);
  for (const [column, value] of Object.entries(equal)) if (value !== undefined) where.push(`${column} = ${$(value)}`);
  // A cursor may lie past every id (up to the bigint bound the paging check allows): compared as
  // a bigint, it is the first page, where an integer parameter would fail to bind.
  if (f.before !== undefined) where.push(`id < ${$(f.before)}::bigint`);
  // The page's ids first, from the (merchant_id, id) index alone, then their rows. Asked for whole
  // rows at once, the planner walks the primary key backwards and filters on merchant_id, pricing
  // it as if each merchant's rows were spread evenly over the ids; they are not (other merchants'
  // newest rows come first), and the largest merchant's first page read 26,867 rows of others at
  // 5 M deposits (225 ms against 0.3 ms this way; docs/performance.md, "At scale").
  const { rows } = await q.query<T>(
    `SELECT t.* FROM (SELECT id FROM ${table} WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${$(limit + 1)}) page
     JOIN ${table} t USING (id) ORDER BY t.id DESC`,
    params,
  );
  return { rows: rows.slice(0, limit), next: rows.length > limit ? rows[limit - 1]!.id : null };
}
