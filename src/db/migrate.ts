// Versioned SQL migrations: src/db/migrations/NNN_name.sql, applied in order, each once,
// each in its own transaction. An advisory lock keeps two starting processes from racing.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_ID = 4242_0001;

export function listMigrations(): { version: string; sql: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: f.replace(/\.sql$/, ''), sql: readFileSync(join(MIGRATIONS_DIR, f), 'utf8') }));
}

export async function migrate(db: Db): Promise<string[]> {
  const applied: string[] = [];
  await db.tx(async (q) => {
    // The lock comes first: two processes starting on an empty database would otherwise race on
    // creating schema_migrations itself (CREATE TABLE IF NOT EXISTS is not safe concurrently).
    // A migration may rewrite a big table, and a second process waits here for the first one's
    // migrations: the bounds of request transactions (docs/operations.md, Timeouts) are lifted,
    // and exec carries no client-side timeout.
    await q.exec(`SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0; SELECT pg_advisory_xact_lock(${LOCK_ID})`);
    await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await q.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const m of listMigrations()) {
      if (done.has(m.version)) continue;
      await q.exec(m.sql);
      await q.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
      applied.push(m.version);
    }
  });
  return applied;
}

/** One migration as `caja migrate --status` shows it. */
export interface MigrationStatus {
  version: string;
  /** When it was applied; null: pending (this version has it, the database does not yet). */
  appliedAt: Date | null;
  /** Applied to the database but unknown to this version of caja (a newer one ran): true. */
  unknown: boolean;
}

/** What is applied and what is pending, read only: nothing is applied, no lock is taken. */
export async function migrationStatus(db: Db): Promise<MigrationStatus[]> {
  const exists = (await db.query<{ t: string | null }>(`SELECT to_regclass('schema_migrations')::text AS t`)).rows[0]?.t != null;
  const applied = new Map(
    exists ? (await db.query<{ version: string; applied_at: Date }>('SELECT version, applied_at FROM schema_migrations')).rows.map((r) => [r.version, r.applied_at] as const) : [],
  );
  const known = listMigrations().map((m) => m.version);
  const rows: MigrationStatus[] = known.map((version) => ({ version, appliedAt: applied.get(version) ?? null, unknown: false }));
  for (const [version, appliedAt] of applied) if (!known.includes(version)) rows.push({ version, appliedAt, unknown: true });
  return rows.sort((a, b) => a.version.localeCompare(b.version));
}

