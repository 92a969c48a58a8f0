// Where a phase's database time goes: samples pg_stat_activity of one database every 50 ms while
// a phase runs and counts what its active backends were doing (a wait event, or CPU when none),
// and which ledger account rows had a queue of lock waiters (a waiter at the head of a row's queue
// holds a `tuple` lock on it). `npm run bench -- hot` reports it per phase.
import pg from 'pg';

export interface WaitProfile {
  samples: number;
  /** "wait_event_type:wait_event | statement start" → samples, most first. */
  top: [string, number][];
  /** Share of active-backend samples waiting on a lock (Lock:*). */
  lockShare: number;
  /** Ledger account rows with a queue ("kind/merchant_key/currency") → samples. */
  queuedAccounts: [string, number][];
}

export async function sampleWaits<T>(databaseUrl: string, phase: () => Promise<T>): Promise<{ result: T; waits: WaitProfile }> {
  const c = new pg.Client({ connectionString: databaseUrl });
  c.on('error', () => {});
  await c.connect();
  const counts = new Map<string, number>();
  const queued = new Map<string, number>();
  let samples = 0;
  let active = 0;
  let locked = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const a = await c.query<{ w: string; q: string }>(
        `SELECT coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-') AS w, regexp_replace(left(query, 40), '\\s+', ' ', 'g') AS q
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`,
      );
      const t = await c.query<{ k: string }>(
        `SELECT a.kind || '/' || a.merchant_key || '/' || a.currency AS k FROM pg_locks l
         JOIN ledger_accounts a ON a.ctid = ('(' || l.page || ',' || l.tuple || ')')::tid
         WHERE l.locktype = 'tuple' AND l.relation = 'ledger_accounts'::regclass AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      samples++;
      for (const r of a.rows) {
        const k = `${r.w} | ${r.q}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
        active++;
        if (r.w.startsWith('Lock:')) locked++;
      }
      for (const r of t.rows) queued.set(r.k, (queued.get(r.k) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    const result = await phase();
    return {
      result,
      waits: {
        samples,
        top: [...counts].sort((x, y) => y[1] - x[1]).slice(0, 6),
        lockShare: active ? Math.round((locked / active) * 100) / 100 : 0,
        queuedAccounts: [...queued].sort((x, y) => y[1] - x[1]).slice(0, 3),
      },
    };
  } finally {
    running = false;
    await loop.catch(() => {});
    await c.end();
  }
}
