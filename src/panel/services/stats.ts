// The panel home's figures for the last 30 days: deposits created and completed per day, their
// completed volume in USD, by country and by method, refunds and cashouts per day. Read from the
// day figures migration 025 keeps (a few hundred rows), not aggregated over the deposits: the
// home cost 8 s at 5 million deposits when it was (docs/panel.md, "The home's figures").
import type { Queryable } from '../../db/db.ts';
import { add, fromDb, toDb } from '../../domain/money.ts';

export interface DayFigures {
  day: string;
  created: number;
  completed: number;
  volumeUsd: string;
  refunds: number;
  cashouts: number;
}

export interface GroupFigures {
  key: string;
  created: number;
  completed: number;
  volumeUsd: string;
}

export interface HomeStats {
  days: DayFigures[];
  byCountry: GroupFigures[];
  byMethod: GroupFigures[];
}

export const STATS_DAYS = 30;

export async function homeStats(q: Queryable, merchantId: number, now: Date): Promise<HomeStats> {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (STATS_DAYS - 1)));
  // The folded figures and the deltas not folded yet, added: exact at every moment.
  const { rows } = await q.query<{ day: string; country: string; method: string; created: number; completed: number; volume: string; refunds: number; cashouts: number }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, country, payment_method AS method, sum(created)::int AS created, sum(completed)::int AS completed,
            sum(completed_usd)::text AS volume, sum(refunds)::int AS refunds, sum(cashouts)::int AS cashouts
     FROM (SELECT day, country, payment_method, created, completed, completed_usd, refunds, cashouts
           FROM panel_day_figures WHERE merchant_id = $1 AND day >= $2::date
           UNION ALL
           SELECT day, country, payment_method, created, completed, completed_usd, refunds, cashouts
           FROM panel_day_deltas WHERE merchant_id = $1 AND day >= $2::date) f
     GROUP BY 1, 2, 3`,
    [merchantId, start.toISOString().slice(0, 10)],
  );
  const byDay = new Map<string, DayFigures>();
  const groups = { country: new Map<string, GroupFigures>(), method: new Map<string, GroupFigures>() };
  const addTo = (m: Map<string, GroupFigures>, key: string, r: (typeof rows)[number]) => {
    const g = m.get(key) ?? { key, created: 0, completed: 0, volumeUsd: '0' };
    m.set(key, { key, created: g.created + r.created, completed: g.completed + r.completed, volumeUsd: sumDecimal(g.volumeUsd, r.volume) });
  };
  for (const r of rows) {
    const d = byDay.get(r.day) ?? { day: r.day, created: 0, completed: 0, volumeUsd: '0', refunds: 0, cashouts: 0 };
    byDay.set(r.day, {
      ...d, created: d.created + r.created, completed: d.completed + r.completed, volumeUsd: sumDecimal(d.volumeUsd, r.volume),
      refunds: d.refunds + r.refunds, cashouts: d.cashouts + r.cashouts,
    });
    // Rows of country '' carry refunds and cashouts only.
    if (r.country !== '') {
      addTo(groups.country, r.country, r);
      addTo(groups.method, r.method, r);
    }
  }
  const days: DayFigures[] = [];
  for (let i = 0; i < STATS_DAYS; i++) {
    const day = new Date(start.getTime() + i * 86_400_000).toISOString().slice(0, 10);
    days.push(byDay.get(day) ?? { day, created: 0, completed: 0, volumeUsd: '0', refunds: 0, cashouts: 0 });
  }
  // A group every deposit of which moved to another (a method chosen later) counts nothing.
  const ranked = (m: Map<string, GroupFigures>) =>
    [...m.values()].filter((g) => g.created > 0).sort((a, b) => b.created - a.created || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { days, byCountry: ranked(groups.country), byMethod: ranked(groups.method) };
}

function sumDecimal(a: string, b: string): string {
  return toDb(add(fromDb(a), fromDb(b)));
}

/** Deltas one fold statement takes at most. */
export const FOLD_DELTAS = 50_000;

/**
 * Folds the deltas the triggers of migration 025 append into the day figures, in one statement;
 * run by the balance fold worker. Concurrent folds are safe: a delta is deleted by exactly one of
 * them. Answers how many deltas it folded (FOLD_DELTAS: more may wait).
 *
 * The ids are taken once, as an array (an InitPlan), whatever the table's statistics say: vacuumed
 * while nearly empty, the table is estimated at no rows, and `id IN (SELECT …)` was then planned
 * as a nested loop that folded 50,000 deltas in 10 s instead of well under one.
 */
export async function foldDayFigures(q: Queryable): Promise<number> {
  const r = await q.query<{ folded: number }>(
    `WITH moved AS (
       DELETE FROM panel_day_deltas WHERE id = ANY (ARRAY(SELECT id FROM panel_day_deltas ORDER BY id LIMIT ${FOLD_DELTAS} FOR UPDATE SKIP LOCKED))
       RETURNING merchant_id, day, country, payment_method, created, completed, completed_usd, refunds, cashouts
     ), added AS (
       INSERT INTO panel_day_figures AS f (merchant_id, day, country, payment_method, created, completed, completed_usd, refunds, cashouts)
       SELECT merchant_id, day, country, payment_method, sum(created), sum(completed), sum(completed_usd), sum(refunds), sum(cashouts)
       FROM moved GROUP BY 1, 2, 3, 4
       ON CONFLICT (merchant_id, day, country, payment_method) DO UPDATE
         SET created = f.created + EXCLUDED.created, completed = f.completed + EXCLUDED.completed,
             completed_usd = f.completed_usd + EXCLUDED.completed_usd, refunds = f.refunds + EXCLUDED.refunds, cashouts = f.cashouts + EXCLUDED.cashouts
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM moved)::int AS folded`,
  );
  return r.rows[0]?.folded ?? 0;
}

/**
 * Deltas folded since panel_day_deltas was last vacuumed, per database. A folded delta leaves a
 * dead row and a dead entry in the (merchant_id, day) index that every home view walks past
 * until the table is vacuumed: after 500,000 deposits, 1.6 to 4 times the view's cost (issue 43), and
 * PGlite never vacuums by itself.
 */
const foldedSinceVacuum = new WeakMap<object, number>();
/** Dead deltas left before the fold vacuums their table (a few milliseconds for that many). */
export const VACUUM_AFTER_DELTAS = 10_000;

/**
 * Folds every delta there is (batches of FOLD_DELTAS until one comes back partial: deltas keep
 * coming under load, so "until none" would never end), then vacuums the deltas' table once
 * VACUUM_AFTER_DELTAS have been folded since the last time, so that what a view reads stays the
 * figures plus the deltas of one interval. Answers how many it folded.
 */
export async function foldAllDayFigures(db: Queryable): Promise<number> {
  let folded = 0;
  for (;;) {
    const n = await foldDayFigures(db);
    folded += n;
    if (n < FOLD_DELTAS) break;
  }
  const since = (foldedSinceVacuum.get(db) ?? 0) + folded;
  if (since >= VACUUM_AFTER_DELTAS) {
    // Not in a transaction (VACUUM cannot be); SKIP_LOCKED: a process vacuuming it already does.
    await db.exec('VACUUM (SKIP_LOCKED) panel_day_deltas');
    foldedSinceVacuum.set(db, 0);
  } else {
    foldedSinceVacuum.set(db, since);
  }
  return folded;
}
