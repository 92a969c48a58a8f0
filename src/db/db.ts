// One small interface over both stores: embedded PGlite (default) and PostgreSQL (DATABASE_URL).
// The same SQL and migrations run on both.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { asUnavailable, DatabaseUnavailableError, isDatabaseUnavailable } from './unavailable.ts';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface QueryOptions {
  /** Hot statements (deposit creation): a name makes PostgreSQL keep the parsed, planned
   * statement per connection instead of planning it on every call. Ignored by PGlite, and on
   * PostgreSQL with `prepared_statements=false` in DATABASE_URL (poolers: openPostgres). */
  name?: string;
  /**
   * PostgreSQL, a write outside a transaction: its answer read back (the rows it returned) after
   * it committed with its answer lost (a failover). With it, the statement keeps its one round
   * trip (its outcome token goes in a CTE of its own, src/db/db.ts); without it, it runs in a
   * transaction, whose answer is known before its COMMIT. Only for statements that start with
   * WITH, INSERT, UPDATE or DELETE.
   */
  reread?: () => Promise<QueryResult<any>>;
}

export interface Queryable {
  query<T = Record<string, any>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<QueryResult<T>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface TxOptions {
  /**
   * The transaction's named statements run on their generic plans (plan_cache_mode), set with
   * BEGIN in the same round trip, instead of PostgreSQL planning them again for each execution's
   * parameters: for set-based statements over arrays, whose best plan does not depend on the
   * values. Measured on the shared status-change transactions: 13-17 % less PostgreSQL CPU per
   * completion (docs/performance.md, Hot accounts). Not for a statement that picks a partial
   * index by a parameter's value. PGlite caches no plans: nothing changes there.
   */
  genericPlans?: boolean;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'pg';
  /** Runs fn in one transaction; retried on serialization failures and deadlocks. */
  tx<T>(fn: (q: Queryable) => Promise<T>, opts?: TxOptions): Promise<T>;
  close(): Promise<void>;
  /**
   * PostgreSQL: calls `onEvent` on each NOTIFY on `channel` (a connection of its own, opened again
   * when lost; `onEvent` is also called each time listening starts, as a notification may have been
   * missed meanwhile). Answers the function that stops listening. Absent on PGlite (one process).
   */
  listen?(channel: string, onEvent: () => void): Promise<() => Promise<void>>;
  /** PostgreSQL: what the failover hold did (counts since the pool opened). */
  readonly holdStats?: HoldStats;
  /**
   * PostgreSQL: a connection of its own held open for the process's life (until close()), named by
   * its backend's pid and start: while the process lives, pg_stat_activity shows it; when the
   * process dies (or the connection is lost: `alive()` turns false) the row goes. The holder of
   * the send-once leases (src/jobs/send-once.ts). Absent on PGlite (one process).
   */
  session?(): Promise<DbSession>;
}

/** A connection held open to name its process in pg_stat_activity (Db.session). */
export interface DbSession {
  pid: number;
  started: Date;
  alive(): boolean;
  close(): Promise<void>;
}

const INT8 = 20;
const NUMERIC = 1700;
// Counts and sums of int columns come back as int8; they stay far below 2^53.
const int8 = (v: string) => Number(v);
// Money stays text so that no float ever touches it.
const numeric = (v: string) => v;

const RETRYABLE = new Set(['40001', '40P01']);

/**
 * True when a statement failed on the named constraint with this SQLSTATE (23505 unique, 23514
 * check). node-pg gives the constraint's name in `constraint`; PGlite only in the message.
 */
export function violatesConstraint(err: unknown, code: string, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  return e?.code === code && (e.constraint === constraint || (e.message ?? '').includes(constraint));
}

async function withRetry<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (!code || !RETRYABLE.has(code) || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 5 * attempt + Math.random() * 20));
    }
  }
}

/**
 * How long caja waits for PostgreSQL (docs/operations.md, Timeouts). A partition that holds
 * packets must not hold a request: past these bounds the request fails with
 * DatabaseUnavailableError (a 503 with Retry-After), and the connection is dropped.
 */
export interface PostgresTimeouts {
  /** Opening a connection (TCP and startup). */
  connectMs: number;
  /**
   * Client side, per statement: the wait for its answer (a black-holed link never answers). Also
   * the longest wait for a connection from the pool when all are busy.
   */
  queryMs: number;
  /** Server side, per statement in a transaction (`statement_timeout`); below queryMs. */
  statementMs: number;
  /** Server side, waiting for a row or table lock (`lock_timeout`). */
  lockMs: number;
  /** Server side: a transaction left open this long is ended by the server (`idle_in_transaction_session_timeout`). */
  idleInTransactionMs: number;
  /**
   * Failover hold: how long an operation that found no primary waits for one (then runs, or
   * resolves its in-doubt COMMIT) before failing with DatabaseUnavailableError. 0: fail at once.
   */
  holdMs?: number;
  /** Operations held at once at most; one more fails at once. */
  holdQueue?: number;
}

export const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = { connectMs: 5000, queryMs: 20000, statementMs: 15000, lockMs: 10000, idleInTransactionMs: 20000, holdMs: 20000, holdQueue: 10000 };

/**
 * A statement that changes nothing when sent again: run again after its connection broke. Other
 * statements outside a transaction run in one (Db.query on PostgreSQL), so that a lost COMMIT
 * can be resolved (tx_outcomes).
 */
export function isReadStatement(sql: string): boolean {
  return /^\s*(select|show|values)\b/i.test(sql);
}

/**
 * A write statement with an insert of its outcome token ($tokenParam) as a CTE of its own, so
 * that the token commits with it in its one round trip; null for a statement that cannot take
 * a CTE (it starts with neither WITH nor INSERT, UPDATE, DELETE).
 */
export function outcomeStatement(sql: string, tokenParam: number): string | null {
  const cte = `caja_outcome AS (INSERT INTO tx_outcomes (token) VALUES ($${tokenParam}::uuid))`;
  const w = /^\s*with\s+(recursive\s+)?/i.exec(sql);
  if (w) return `WITH ${w[1] ? 'RECURSIVE ' : ''}${cte}, ${sql.slice(w[0].length)}`;
  if (/^\s*(insert|update|delete)\s/i.test(sql)) return `WITH ${cte} ${sql.trimStart()}`;
  return null;
}

// The database's own answers about this request's slowness or the server's resources: not a
// failover. They fail at once (a 503) rather than being held and run again.
const NOT_HELD = new Set(['statement_timeout', 'lock_timeout', 'idle_in_transaction_timeout', 'disk_full', 'out_of_memory', 'insufficient_resources', 'system_error', 'io_error']);

/** A database-unavailable failure that a failover makes, and that the hold waits out. */
export function heldOver(err: unknown): boolean {
  return isDatabaseUnavailable(err) && !NOT_HELD.has(err.reason);
}

/** Counts of the failover hold, for tests and metrics. */
export interface HoldStats {
  held: number;
  inDoubt: number;
  inDoubtCommitted: number;
  rerun: number;
  refused: number;
  /**
   * Database-unavailable failures let through to the caller (each one a 503), by reason: a hold
   * whose deadline passed (`expired: <reason>`), or a reason that is never held.
   */
  surfaced: Record<string, number>;
}

export function openPostgres(url: string, poolSize = 20, timeouts: PostgresTimeouts = DEFAULT_POSTGRES_TIMEOUTS): Db {
  // Behind a pooler in transaction mode that does not track protocol-level prepared statements
  // (pgbouncer before 1.21; Debian 12 ships 1.18), a statement prepared on one server connection
  // is missing on the next one it hands out: `prepared_statements=false` in DATABASE_URL sends
  // every statement unnamed, planned on each call (pgbench: ≈40 % fewer deposit inserts a second).
  const preparedParam = new URL(url).searchParams.get('prepared_statements');
  if (preparedParam !== null && preparedParam !== 'true' && preparedParam !== 'false') {
    throw new Error(`DATABASE_URL: prepared_statements must be true or false, got '${preparedParam}'`);
  }
  const prepared = preparedParam !== 'false';
  // The driver is loaded when a PostgreSQL database is opened: a process on the embedded database
  // (each CLI command, each test file) would otherwise load it for nothing (80 ms of CPU).
  const { Client, Pool, types } = createRequire(import.meta.url)('pg') as typeof pg;
  // Two different waits: opening a connection (the client's own timeout: a host that does not
  // answer) and waiting for a free one from the pool (pg-pool's: a burst of requests queued
  // behind busy connections, which is load, not an outage, and gets the longer bound).
  class BoundedClient extends Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: timeouts.connectMs });
    }
  }
  /** The LISTEN connections opened by listen(), ended by close(). */
  const listeners = new Set<() => Promise<void>>();
  const pool = new Pool({
    connectionString: url,
    max: poolSize,
    Client: BoundedClient,
    connectionTimeoutMillis: timeouts.queryMs,
    // A peer that vanished without a FIN/RST (a host gone, a partition) is found on idle
    // connections too, not only when a query waits on one.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types: {
      getTypeParser: ((oid: number, format?: string) => {
        if (oid === INT8) return int8;
        if (oid === NUMERIC) return numeric;
        return types.getTypeParser(oid, format as any);
      }) as any,
    },
  });
  // An idle client losing its connection must not crash the process; pg-pool removes it.
  pool.on('error', () => {});
  // Nor a checked-out one: a server's FATAL (57P01 when a failover or pg_terminate_backend ends
  // the session) that arrives while no statement runs is emitted as 'error' on the client, and
  // there are moments (between the pool handing a client out and its user listening) when
  // nothing listens. The statement in flight, or the next one, fails anyway ("not queryable"),
  // and such a client is destroyed on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  // The server-side bounds travel with BEGIN, in the same round trip, as SET LOCAL: a pooler in
  // transaction mode (pgbouncer 1.18) refuses them as startup parameters ("unsupported startup
  // parameter"), and a session SET would stay on a server connection other clients then get.
  const begin = `BEGIN; SET LOCAL statement_timeout = ${timeouts.statementMs}; SET LOCAL lock_timeout = ${timeouts.lockMs}; SET LOCAL idle_in_transaction_session_timeout = ${timeouts.idleInTransactionMs}`;
  // query_timeout is given per statement (not to the pool): exec, which runs migrations and
  // scripts, has no client-side bound.
  const statement = (sql: string, params: unknown[] | undefined, opts: QueryOptions | undefined) =>
    ({ ...(opts?.name && prepared ? { name: opts.name } : {}), text: sql, values: params as any[], query_timeout: timeouts.queryMs });
  const holdMs = timeouts.holdMs ?? 0;
  const holdQueue = timeouts.holdQueue ?? 10000;
  const stats: HoldStats = { held: 0, inDoubt: 0, inDoubtCommitted: 0, rerun: 0, refused: 0, surfaced: {} };
  let holding = 0;
  /** Counts err in stats.surfaced when it reaches the caller as database-unavailable. */
  const surface = (err: unknown): never => {
    if (isDatabaseUnavailable(err)) {
      // A failure the hold waits out that still reached the caller: the hold's deadline passed
      // (or its queue was full).
      const key = holdMs > 0 && heldOver(err) ? `expired: ${err.reason}` : err.reason;
      stats.surfaced[key] = (stats.surfaced[key] ?? 0) + 1;
    }
    throw err;
  };
  /** The shared wait for a primary: one probe loop however many operations are held. */
  let primaryBack: Promise<void> | null = null;
  let closed = false;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const probe = async (): Promise<void> => {
    for (;;) {
      if (closed) throw new DatabaseUnavailableError('closed');
      try {
        const r = await pool.query({ text: 'SELECT pg_is_in_recovery() AS standby', query_timeout: Math.min(timeouts.queryMs, 2000) } as any);
        if (r.rows[0]?.standby === false) return;
      } catch {
        // still no primary
      }
      await sleep(200);
    }
  };
  /**
   * Waits for a primary that accepts writes, until `deadline` (then `cause`, the failure that
   * started the wait, is thrown). Bounded: past holdQueue operations waiting, fails at once.
   */
  const hold = async (deadline: number, cause: unknown): Promise<void> => {
    const left = deadline - Date.now();
    if (left <= 0 || closed) throw cause;
    if (holding >= holdQueue) {
      stats.refused++;
      throw cause;
    }
    holding++;
    stats.held++;
    let timer: NodeJS.Timeout | undefined;
    try {
      primaryBack ??= probe().finally(() => (primaryBack = null));
      const expired = new Promise<'expired'>((r) => (timer = setTimeout(() => r('expired'), left)));
      if ((await Promise.race([primaryBack, expired])) === 'expired') throw cause;
    } finally {
      clearTimeout(timer);
      holding--;
    }
  };
  /**
   * A write transaction's COMMIT was lost with its connection: inserting its token tells whether
   * it committed (conflict) or not (inserted: and now it never can, the token being taken). A
   * transaction still running on the same server holds the token's index entry: the insert waits
   * for its end. Held, and asked again, until the deadline.
   */
  const committed = async (token: string, deadline: number, cause: unknown): Promise<boolean> => {
    stats.inDoubt++;
    for (;;) {
      await hold(deadline, cause);
      try {
        const r = await pool.query({ text: 'INSERT INTO tx_outcomes (token) VALUES ($1) ON CONFLICT DO NOTHING', values: [token], query_timeout: timeouts.queryMs } as any);
        const done = r.rowCount === 0;
        if (done) stats.inDoubtCommitted++;
        return done;
      } catch (err) {
        if (!isDatabaseUnavailable(asUnavailable(err))) throw err;
      }
    }
  };
  /** One attempt of a transaction; `state` says whether it wrote and whether COMMIT was sent. */
  const attempt = async <T>(fn: (q: Queryable) => Promise<T>, opts: TxOptions | undefined, token: string, state: { wrote: boolean; commitSent: boolean; result?: T }): Promise<T> => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw asUnavailable(err);
    }
    // A connection that drops while checked out emits 'error' on the client: without a
    // listener the event would crash the process. The query in flight rejects anyway, and the
    // broken client is destroyed on release rather than handed to the next transaction.
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    const run = async (text: string | object) => {
      try {
        return await client.query(text as any);
      } catch (err) {
        const e = asUnavailable(err);
        // A timed-out or cut connection may still have a statement running or be half-read:
        // it is not reused.
        if (e !== err) broken ??= e as Error;
        throw e;
      }
    };
    try {
      await run(opts?.genericPlans ? `${begin}; SET LOCAL plan_cache_mode = force_generic_plan` : begin);
      const q: Queryable = {
        async query<R>(sql: string, params?: unknown[], opts?: QueryOptions) {
          if (!state.wrote && !isReadStatement(sql)) state.wrote = true;
          const r = await run(statement(sql, params, opts));
          return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
        },
        async exec(sql: string) {
          state.wrote = true;
          await run(sql);
        },
      };
      const result = await fn(q);
      state.result = result;
      // Lost here, the transaction may or may not have committed: tx() finds out (tx_outcomes).
      // The token goes in the COMMIT's own round trip (one simple-protocol message).
      state.commitSent = true;
      await run(state.wrote ? `INSERT INTO tx_outcomes (token) VALUES ('${token}'); COMMIT` : 'COMMIT');
      return result;
    } catch (err) {
      if (!broken) await client.query({ text: 'ROLLBACK', query_timeout: timeouts.queryMs } as any).catch((e: Error) => (broken = e));
      throw asUnavailable(err);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  };
  const tx = async <T>(fn: (q: Queryable) => Promise<T>, opts?: TxOptions): Promise<T> => {
    const deadline = Date.now() + holdMs;
    let reruns = 0;
    for (;;) {
      const token = randomUUID();
      const state: { wrote: boolean; commitSent: boolean; result?: T } = { wrote: false, commitSent: false };
      try {
        return await withRetry(() => {
          state.wrote = false;
          state.commitSent = false;
          return attempt(fn, opts, token, state);
        });
      } catch (err) {
        if (!heldOver(err) || holdMs <= 0) throw err;
        // In doubt: a write whose COMMIT was sent. Committed: its answer is the one computed.
        if (state.commitSent && state.wrote) {
          if (await committed(token, deadline, err)) return state.result as T;
        } else {
          await hold(deadline, err);
        }
        // It did not commit (and cannot any more): run it again on the primary, backing off if
        // it keeps failing so (a node refusing writes while its pooler still answers).
        if (reruns > 0) await sleep(Math.min(50 * 2 ** reruns, 1000));
        reruns++;
        stats.rerun++;
      }
    }
  };
  // Tokens are needed for seconds (a hold lasts holdMs at most): older ones are pruned, in small
  // deletes, by every process (concurrent deletes of the same rows cost nothing more than a wait).
  let pruning = false;
  const prune = setInterval(() => {
    if (holding > 0 || pruning) return;
    pruning = true;
    void (async () => {
      for (let i = 0; i < 50 && !closed; i++) {
        const r = await pool.query({ text: `DELETE FROM tx_outcomes WHERE token IN (SELECT token FROM tx_outcomes WHERE at < now() - interval '10 minutes' LIMIT 5000)`, query_timeout: timeouts.queryMs } as any);
        if ((r.rowCount ?? 0) < 5000) break;
      }
    })().catch(() => undefined).finally(() => (pruning = false));
  }, 30_000);
  prune.unref();
  const query = async <T>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<QueryResult<T>> => {
    // A write outside a transaction runs in one while a hold is possible, so that its outcome
    // can be found out after a lost connection (its BEGIN and COMMIT travel with other
    // messages: two more round trips for a statement that is usually a batch's).
    if (holdMs > 0 && !isReadStatement(sql)) {
      const withOutcome = opts?.reread ? outcomeStatement(sql, (params?.length ?? 0) + 1) : null;
      if (!withOutcome) return tx((q) => q.query<T>(sql, params, opts));
      const named = opts?.name ? { ...opts, name: `${opts.name}_o` } : opts;
      const deadline = Date.now() + holdMs;
      let reruns = 0;
      for (;;) {
        const token = randomUUID();
        try {
          const r = await pool.query(statement(withOutcome, [...(params ?? []), token], named) as any);
          return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
        } catch (err) {
          const e = asUnavailable(err);
          if (!heldOver(e)) throw e;
          // Sent or not, its token says whether it committed; committed, its answer is read back.
          if (await committed(token, deadline, e)) return (await opts!.reread!()) as QueryResult<T>;
          if (reruns > 0) await sleep(Math.min(50 * 2 ** reruns, 1000));
          reruns++;
          stats.rerun++;
        }
      }
    }
    const deadline = Date.now() + holdMs;
    for (;;) {
      try {
        // pg-pool destroys a client whose query failed (release(err)), so a connection that
        // timed out or broke is never handed out again; the pool opens new ones as needed.
        const r = await pool.query(statement(sql, params, opts) as any);
        return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
      } catch (err) {
        const e = asUnavailable(err);
        if (!heldOver(e) || holdMs <= 0) throw e;
        // A read: asked again once a primary is back.
        await hold(deadline, e);
      }
    }
  };
  return {
    kind: 'pg',
    holdStats: stats,
    query: <T>(sql: string, params?: unknown[], opts?: QueryOptions) => query<T>(sql, params, opts).catch(surface),
    async exec(sql: string) {
      try {
        await pool.query(sql);
      } catch (err) {
        throw asUnavailable(err);
      }
    },
    tx: <T>(fn: (q: Queryable) => Promise<T>, opts?: TxOptions) => tx(fn, opts).catch(surface),
    async listen(channel: string, onEvent: () => void) {
      if (!/^[a-z_]+$/.test(channel)) throw new Error(`listen: bad channel name ${channel}`);
      let stopped = false;
      let client: pg.Client | null = null;
      let retry: NodeJS.Timeout | undefined;
      const connect = async (): Promise<void> => {
        if (stopped) return;
        const c = new BoundedClient({ connectionString: url, keepAlive: true });
        const lost = () => {
          if (client !== c) return;
          client = null;
          c.end().catch(() => undefined);
          if (!stopped) (retry = setTimeout(() => void connect(), 1000)).unref();
        };
        c.on('error', lost);
        c.on('end', lost);
        c.on('notification', (n) => {
          if (n.channel === channel) onEvent();
        });
        client = c;
        try {
          await c.connect();
          await c.query(`LISTEN ${channel}`);
          onEvent();
        } catch {
          lost();
        }
      };
      const stop = async () => {
        stopped = true;
        clearTimeout(retry);
        const c = client;
        client = null;
        listeners.delete(stop);
        await c?.end().catch(() => undefined);
      };
      listeners.add(stop);
      await connect();
      return stop;
    },
    async session() {
      const c = new BoundedClient({ connectionString: url, keepAlive: true });
      let open = true;
      const lost = () => {
        open = false;
        c.end().catch(() => undefined);
      };
      c.on('error', lost);
      c.on('end', lost);
      await c.connect();
      const { rows } = await c.query<{ pid: number; backend_start: Date }>('SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()');
      const stop = async () => {
        open = false;
        listeners.delete(stop);
        await c.end().catch(() => undefined);
      };
      listeners.add(stop);
      return { pid: rows[0]!.pid, started: rows[0]!.backend_start, alive: () => open, close: stop };
    },
    close: async () => {
      closed = true;
      clearInterval(prune);
      await Promise.all([...listeners].map((stop) => stop()));
      await pool.end();
    },
  };
}

/**
 * dataDir undefined keeps the database in memory (tests). `initialData`, a dump by PGlite's
 * dumpDataDir, starts it from that data directory instead of running initdb: the test suite opens
 * about a hundred databases, and initdb plus the migrations are most of the 3 to 4 s of CPU each
 * costs (test/helpers/pglite-template.ts).
 */
export async function openPglite(dataDir?: string, initialData?: Blob): Promise<Db> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  return pgliteDb(
    await PGlite.create({
      dataDir,
      loadDataDir: initialData,
      parsers: { [pgliteTypes.INT8]: int8, [pgliteTypes.NUMERIC]: numeric },
    }),
  );
}

/** The Db over an open PGlite (openPglite's, or one a test migrates to keep its dump). */
export function pgliteDb(lite: PGlite): Db {
  return {
    kind: 'pglite',
    async query<T>(sql: string, params?: unknown[]) {
      const r = await lite.query<T>(sql, params as any[]);
      return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
    },
    async exec(sql: string) {
      await lite.exec(sql);
    },
    tx<T>(fn: (q: Queryable) => Promise<T>) {
      // PGlite is one connection: its transaction() holds it exclusively, so transactions
      // are serialised and never conflict.
      return lite.transaction(async (t) => {
        const q: Queryable = {
          async query<R>(sql: string, params?: unknown[]) {
            const r = await t.query<R>(sql, params as any[]);
            return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
          },
          async exec(sql: string) {
            await t.exec(sql);
          },
        };
        return fn(q);
      });
    },
    close: () => lite.close(),
  };
}

export async function openDb(opts: { databaseUrl?: string; dataDir?: string; memory?: boolean; initialData?: Blob; timeouts?: PostgresTimeouts }): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, undefined, opts.timeouts);
  if (opts.memory) return openPglite(undefined, opts.initialData);
  return openPglite(opts.dataDir && `${opts.dataDir}/pglite`);
}
