// One small interface over both stores: embedded PGlite (default) and PostgreSQL (DATABASE_URL).
// The same SQL and migrations run on both.
import { mkdirSync } from 'node:fs';
import pg from 'pg';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface QueryOptions {
  /** Hot statements (deposit creation): a name makes PostgreSQL keep the parsed, planned
   * statement per connection instead of planning it on every call. Ignored by PGlite, and on
   * PostgreSQL with `prepared_statements=false` in DATABASE_URL (poolers: openPostgres). */
  name?: string;
}

export interface Queryable {
  query<T = Record<string, any>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<QueryResult<T>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'pg';
  /** Runs fn in one transaction; retried on serialization failures and deadlocks. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
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

export function openPostgres(url: string, poolSize = 20): Db {
  // Behind a pooler in transaction mode that does not track protocol-level prepared statements
  // (pgbouncer before 1.21; Debian 12 ships 1.18), a statement prepared on one server connection
  // is missing on the next one it hands out: `prepared_statements=false` in DATABASE_URL sends
  // every statement unnamed, planned on each call (pgbench: ≈40 % fewer deposit inserts a second).
  const preparedParam = new URL(url).searchParams.get('prepared_statements');
  if (preparedParam !== null && preparedParam !== 'true' && preparedParam !== 'false') {
    throw new Error(`DATABASE_URL: prepared_statements must be true or false, got '${preparedParam}'`);
  }
  const prepared = preparedParam !== 'false';
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: {
      getTypeParser: ((oid: number, format?: string) => {
        if (oid === INT8) return int8;
        if (oid === NUMERIC) return numeric;
        return pg.types.getTypeParser(oid, format as any);
      }) as any,
    },
  });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  return {
    kind: 'pg',
    async query<T>(sql: string, params?: unknown[], opts?: QueryOptions) {
      const r = opts?.name && prepared ? await pool.query({ name: opts.name, text: sql, values: params as any[] }) : await pool.query(sql, params as any[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    tx<T>(fn: (q: Queryable) => Promise<T>) {
      return withRetry(async () => {
        const client = await pool.connect();
        // A connection that drops while checked out emits 'error' on the client: without a
        // listener the event would crash the process. The query in flight rejects anyway, and the
        // broken client is destroyed on release rather than handed to the next transaction.
        let broken: Error | undefined;
        const onError = (err: Error) => {
          broken = err;
        };
        client.on('error', onError);
        try {
          await client.query('BEGIN');
          const q: Queryable = {
            async query<R>(sql: string, params?: unknown[], opts?: QueryOptions) {
              const r = opts?.name && prepared ? await client.query({ name: opts.name, text: sql, values: params as any[] }) : await client.query(sql, params as any[]);
              return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
            },
            async exec(sql: string) {
              await client.query(sql);
            },
          };
          const result = await fn(q);
          await client.query('COMMIT');
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        } finally {
          client.off('error', onError);
          client.release(broken);
        }
      });
    },
    close: () => pool.end(),
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

export async function openDb(opts: { databaseUrl?: string; dataDir?: string; memory?: boolean; initialData?: Blob }): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  if (opts.memory) return openPglite(undefined, opts.initialData);
  return openPglite(opts.dataDir && `${opts.dataDir}/pglite`);
}
