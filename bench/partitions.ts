// Retiring a month (docs/operations.md "Partitions", docs/performance.md): one month of events,
// notifications and attempts at the volume of a 5 M-deposits-a-year database (13.6 M events and
// 5.1 M notifications with their attempts a year: 1.13 M events, 425 k notifications and 425 k
// attempts a month), written with generate_series straight into the tables, then one retention
// pass timed: the attempts' month detached, archived and dropped, the notifications archived by
// the row batches, the events' month detached, archived and dropped.
//
// `node --import tsx bench/partitions.ts` (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres;
// PARTITION_BENCH_SCALE=0.1 for a tenth of the volume). The scratch database is dropped at the end.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.ts';
import { openContext } from '../src/server/runtime.ts';
import { createMerchant } from '../src/merchants/merchants.ts';
import { ensurePartitions } from '../src/retention/partitions.ts';
import { retentionBatch } from '../src/retention/worker.ts';
import { retirePartitions } from '../src/retention/partitions.ts';
import { addMonths } from '../src/retention/rules.ts';
import { createScratchDatabase, postgresUrl } from '../test/helpers/databases.ts';

const SCALE = Number(process.env.PARTITION_BENCH_SCALE ?? '1');
const EVENTS = Math.round(1_130_000 * SCALE);
const NOTIFICATIONS = Math.round(425_000 * SCALE);

async function main(): Promise<void> {
  const db = await createScratchDatabase(postgresUrl() ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'h43p_bench_partitions');
  const dataDir = mkdtempSync(join(tmpdir(), 'caja-bench-partitions-'));
  const ctx = await openContext(
    loadConfig({
      CAJA_ENV: 'staging',
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      CAJA_MASTER_KEY: randomBytes(32).toString('base64'),
      CAJA_ADMIN_TOKEN: 'bench-admin-token-0123456789',
      CAJA_RETENTION_EVENTS_DAYS: '90',
      CAJA_RETENTION_NOTIFICATIONS_DAYS: '30',
      LOG_LEVEL: 'warn',
    }),
  );
  try {
    const { merchant } = await createMerchant(ctx.db, ctx.box, ctx.config, { name: 'Bench' });
    const month = addMonths(new Date(), -6);
    await ensurePartitions(ctx.db, month);
    let t0 = performance.now();
    // Generated on a plain connection: caja's statement deadlines are for requests, not for this.
    const gen = new pg.Client({ connectionString: db.url });
    await gen.connect();
    const q = gen;
    {
      await q.query('BEGIN');
      await q.query(
        `INSERT INTO events (merchant_id, type, subject_type, subject_id, data, created_at)
         SELECT $1, 'deposit.status_changed', 'deposit', g, jsonb_build_object('id', g, 'status', 'COMPLETED', 'amount', '100.00', 'currency', 'BRL'),
                $2::timestamptz + (g::float8 / $3) * interval '27 days'
         FROM generate_series(1, $3::int) g`,
        [merchant.id, month, EVENTS],
      );
      await q.query(
        `INSERT INTO notifications (event_id, event_type, merchant_id, subject_key, kind, url, content_type, body, signing_set, status, attempt_count, created_at, finished_at)
         SELECT id, type, merchant_id, 'deposit:' || subject_id, 'v3.deposit', 'https://merchant.example/hook', 'application/json', data::text, 'deposits',
                'delivered', 1, created_at, created_at + interval '2 seconds'
         FROM events WHERE subject_id <= $1`,
        [NOTIFICATIONS],
      );
      await q.query(
        `INSERT INTO notification_attempts (notification_id, attempt_no, started_at, url, status_code, latency_ms, created_at)
         SELECT id, 1, created_at + interval '1 second', url, 200, 40, created_at + interval '1 second' FROM notifications`,
      );
      await q.query('COMMIT');
    }
    await gen.query('ANALYZE events, notifications, notification_attempts');
    await gen.end();
    const generated = (performance.now() - t0) / 1000;

    // The pass's three steps, each timed (runRetention runs them in this order).
    const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
      const t = performance.now();
      const r = await f();
      return [r, +((performance.now() - t) / 1000).toFixed(2)];
    };
    const [attempts, attemptsS] = await timed(() => retirePartitions(ctx, 'notification_attempts'));
    const [notifications, notificationsS] = await timed(async () => {
      let after = 0;
      let n = 0;
      for (;;) {
        const r = await retentionBatch(ctx, 'notifications', after);
        if (r.busy) throw new Error('retention lock busy');
        n += r.archived;
        if (r.done || r.lastId === null) return n;
        after = r.lastId;
      }
    });
    const [events, eventsS] = await timed(() => retirePartitions(ctx, 'events'));
    const archived = { attempts_month: attempts, notifications_rows: notifications, events_month: events };
    const seconds = { attempts_month_s: attemptsS, notifications_rows_s: notificationsS, events_month_s: eventsS };
    const left = await ctx.db.query<{ e: number; n: number; a: number }>(
      `SELECT (SELECT count(*) FROM events)::int AS e, (SELECT count(*) FROM notifications)::int AS n, (SELECT count(*) FROM notification_attempts)::int AS a`,
    );
    console.log(JSON.stringify({ scale: SCALE, events: EVENTS, notifications: NOTIFICATIONS, attempts: NOTIFICATIONS, generated_s: +generated.toFixed(1), ...seconds, archived: Object.fromEntries(Object.entries(archived).map(([k, v]) => [k, Array.isArray(v) ? v.filter((p) => p.outcome !== "archived" || p.rows > 0) : v])), left: left.rows[0] }, null, 2));
  } finally {
    await ctx.db.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
