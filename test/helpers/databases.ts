// Throwaway PostgreSQL databases for tests and benchmarks: each run gets its own, dropped after.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type pg from 'pg';

// Loaded when a PostgreSQL database is made: test files on the embedded database alone need no driver.
const driver = () => createRequire(import.meta.url)('pg') as typeof pg;

/** The server the tests and benchmarks create their databases on, when one is configured. */
export function postgresUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined;
}

/** A new empty database on baseUrl's server; or a copy of `template` (test/helpers/pg-template.ts). */
export async function createScratchDatabase(baseUrl: string, prefix = 'caja_test', template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  // CAJA_SCRATCH_DB_PREFIX: on a shared PostgreSQL each engineer's runs keep to their own names.
  const name = `${process.env.CAJA_SCRATCH_DB_PREFIX ?? ''}${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new (driver().Client)({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new (driver().Client)({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
