// The CLABEs STP deposits are given (docs/connectors.md, "CLABE allocation"). A CLABE is the
// operator's clabe_prefix (10 digits) + 7 account digits + the check digit: 9,999,999 numbers
// per prefix (account 0 is left to the concentrating account). The account digits are drawn at
// random (CSPRNG) and the CLABE is reserved in stp_clabes, under a unique key, before the
// deposit shows it; a number taken is drawn again. Never from a sequence: after the database is
// restored to an earlier point (or in a second installation of the same range) a sequence gives
// the same CLABEs again, while a random draw meets one handed out since the backup only by
// chance, one in ten million per CLABE lost. The operator's own accounts (ordering_clabe and
// every MX own-account CLABE) are never drawn. When random draws keep landing on taken numbers
// (the range nearly full) the allocator takes the first free number from a random point on;
// when none is left it says so (null) and the deposit is refused.
import { randomInt } from 'node:crypto';
import type { Queryable } from '../../db/db.ts';
import { clabeInRange } from './mapping.ts';

/** Account numbers of one prefix: 1 … 9,999,999. */
export const CLABE_NUMBERS = 9_999_999;
/** Random draws before the allocator looks for a free number in order. */
const RANDOM_DRAWS = 16;

export interface ClabeRange {
  prefix: string;
  /** CLABEs never given to a deposit: the operator's own accounts. */
  skip: ReadonlySet<string>;
  /** The highest account number (tests use a small range); CLABE_NUMBERS by default. */
  max?: number;
}

async function reserve(q: Queryable, prefix: string, n: number, depositId: number | null): Promise<string | null> {
  const clabe = clabeInRange(prefix, n);
  const { rows } = await q.query<{ clabe: string }>(
    'INSERT INTO stp_clabes (clabe, prefix, number, deposit_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING clabe',
    [clabe, prefix, n, depositId],
  );
  return rows[0]?.clabe ?? null;
}

/** The first number from `start` on that stp_clabes does not hold, or null. */
async function firstFree(q: Queryable, prefix: string, start: number, max: number): Promise<number | null> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT c.n FROM (SELECT $2::integer AS n UNION ALL SELECT number + 1 FROM stp_clabes WHERE prefix = $1 AND number >= $2 AND number < $3) c
     WHERE NOT EXISTS (SELECT 1 FROM stp_clabes t WHERE t.prefix = $1 AND t.number = c.n) ORDER BY c.n LIMIT 1`,
    [prefix, start, max],
  );
  return rows[0] ? Number(rows[0].n) : null;
}

/** A CLABE of the range for a deposit, reserved (never given again); null when the range is full. */
export async function allocateClabe(q: Queryable, range: ClabeRange, depositId: number | null): Promise<string | null> {
  const max = range.max ?? CLABE_NUMBERS;
  const skipped = (n: number) => range.skip.has(clabeInRange(range.prefix, n));
  for (let i = 0; i < RANDOM_DRAWS; i++) {
    const n = randomInt(1, max + 1);
    if (skipped(n)) continue;
    const clabe = await reserve(q, range.prefix, n, depositId);
    if (clabe) return clabe;
  }
  // Nearly full: the first free number after a random point, then from the start.
  let start = randomInt(1, max + 1);
  let wrapped = false;
  for (let guard = 0; guard < range.skip.size + 64; guard++) {
    const n = await firstFree(q, range.prefix, start, max);
    if (n === null || n > max) {
      if (wrapped) return null;
      wrapped = true;
      start = 1;
      continue;
    }
    if (!skipped(n)) {
      const clabe = await reserve(q, range.prefix, n, depositId);
      if (clabe) return clabe;
    }
    // Skipped, or taken by a concurrent creation meanwhile: look on from the next number.
    start = n + 1;
    if (start > max) {
      if (wrapped) return null;
      wrapped = true;
      start = 1;
    }
  }
  return null;
}

/**
 * CLABEs STP shows transfers into that no deposit of this database was given (handed out by a
 * state of the database since restored away, or by another installation): marked taken, so a
 * new deposit never draws them.
 */
export async function markSeenClabes(q: Queryable, prefix: string, clabes: string[]): Promise<void> {
  const mine = [...new Set(clabes.filter((c) => /^\d{18}$/.test(c) && c.startsWith(prefix) && Number(c.slice(10, 17)) >= 1))];
  if (mine.length === 0) return;
  await q.query(
    `INSERT INTO stp_clabes (clabe, prefix, number, origin) SELECT c, $1, substr(c, 11, 7)::integer, 'seen' FROM unnest($2::text[]) AS c ON CONFLICT DO NOTHING`,
    [prefix, mine],
  );
}
