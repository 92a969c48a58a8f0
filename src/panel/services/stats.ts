// The panel home's figures for the last 30 days: deposits created and completed per day, their
// completed volume in USD, by country and by method, refunds and cashouts per day. Read straight
// from the tables the services write; nothing is kept twice.
import type { Queryable } from '../../db/db.ts';

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
  const daily = await q.query<{ day: string; created: number; completed: number; volume: string }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS created,
            count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed,
            coalesce(sum(usd_amount) FILTER (WHERE status = 'COMPLETED'), 0)::text AS volume
     FROM deposits WHERE merchant_id = $1 AND created_at >= $2 GROUP BY 1`,
    [merchantId, start],
  );
  const counts = async (table: string) =>
    new Map(
      (
        await q.query<{ day: string; n: number }>(
          `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS n FROM ${table}
           WHERE merchant_id = $1 AND created_at >= $2 GROUP BY 1`,
          [merchantId, start],
        )
      ).rows.map((r) => [r.day, r.n]),
    );
  const refunds = await counts('refunds');
  const cashouts = await counts('cashouts');
  const byDay = new Map(daily.rows.map((r) => [r.day, r]));
  const days: DayFigures[] = [];
  for (let i = 0; i < STATS_DAYS; i++) {
    const day = new Date(start.getTime() + i * 86_400_000).toISOString().slice(0, 10);
    const d = byDay.get(day);
    days.push({ day, created: d?.created ?? 0, completed: d?.completed ?? 0, volumeUsd: d?.volume ?? '0', refunds: refunds.get(day) ?? 0, cashouts: cashouts.get(day) ?? 0 });
  }
  const group = async (column: string) =>
    (
      await q.query<GroupFigures>(
        `SELECT coalesce(${column}, '-') AS key, count(*)::int AS created, count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed,
                coalesce(sum(usd_amount) FILTER (WHERE status = 'COMPLETED'), 0)::text AS "volumeUsd"
         FROM deposits WHERE merchant_id = $1 AND created_at >= $2 GROUP BY 1 ORDER BY 2 DESC, 1`,
        [merchantId, start],
      )
    ).rows;
  return { days, byCountry: await group('country'), byMethod: await group('payment_method') };
}
