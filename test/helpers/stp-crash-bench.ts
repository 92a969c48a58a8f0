// The bench of the tests that really kill a caja process (SIGKILL) while STP holds the answer to
// an order (test/connectors/stp-crash.test.ts for a cashout, test/refunds/stp-crash.test.ts for
// an SPEI refund): a scratch PostgreSQL database, the STP simulator, production caja processes
// started from the compiled server on that database and one master key, a context of the test's
// on the same database (to make the second operator production's four eyes ask for), a pg client
// to read rows, and everything stopped after the file.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresUrl } from './databases.ts';
import { migratedScratchDatabase } from './pg-template.ts';
import { beside, type Reachable } from './four-eyes.ts';
import { serverEntry } from './server-entry.ts';
import { ADMIN_TOKEN } from './server.ts';
import { startStpSimulator, type StpSimulator } from './stp-simulator.ts';

export interface CrashBench {
  /** false with DATABASE_URL; else why the file is skipped (two caja processes share one database). */
  skip: false | string;
  sim(): StpSimulator;
  /** A pg client on the bench's database, connected on first use. */
  client(): Promise<pg.Client>;
  /** A production caja process on the bench's database, waiting up to `timeoutMs` for STP. */
  start(timeoutMs: number): Promise<{ child: ChildProcess; base: string }>;
  /** The process at `base` with a context of the test's beside it (for fundMerchant and setRates). */
  reach(base: string): Promise<Reachable>;
}

/** Registers the file's before/after hooks and answers the bench; `name` names its database and directories. */
export function stpCrashBench(name: string, env: Record<string, string> = {}): CrashBench {
  const pgUrl = postgresUrl();
  const masterKey = randomBytes(32).toString('base64');
  const children: ChildProcess[] = [];
  const closers: Array<() => Promise<void>> = [];
  let sim: StpSimulator | undefined;
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let client: pg.Client | undefined;
  const common = () => ({ CAJA_ENV: 'production', DATABASE_URL: db!.url, CAJA_MASTER_KEY: masterKey, CAJA_ADMIN_TOKEN: ADMIN_TOKEN });

  before(async () => {
    if (!pgUrl) return;
    db = await migratedScratchDatabase(pgUrl, name);
    sim = await startStpSimulator();
  });
  after(async () => {
    for (const close of closers) await close().catch(() => undefined);
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await client?.end().catch(() => undefined);
    await sim?.stop();
    await db?.drop();
  });

  return {
    skip: pgUrl ? false : 'needs DATABASE_URL (PostgreSQL): two caja processes share one database',
    sim: () => sim!,
    async client() {
      if (!client) {
        client = new pg.Client({ connectionString: db!.url });
        await client.connect();
      }
      return client;
    },
    async start(timeoutMs) {
      const child = spawn(process.execPath, [serverEntry()], {
        env: {
          ...process.env, ...common(), CAJA_PROCESSES: '1', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
          PUBLIC_BASE_URL: 'https://caja.example', CAJA_ADMIN_ON_PUBLIC_PORT: 'true', DATA_DIR: mkdtempSync(join(tmpdir(), `${name}-`)),
          CAJA_EXPIRY_INTERVAL_MS: '200', CAJA_CONNECTOR_TIMEOUT_MS: String(timeoutMs), CAJA_STP_ORDER_CHECK_SECONDS: '1', ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      // Up in a few seconds on a quiet machine; on one loaded by other work, a minute or more.
      for (let i = 0; i < 2400; i++) {
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) return { child, base: m[1]! };
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`caja did not start: ${out}`);
    },
    async reach(base) {
      const r = await beside(base, { ...common(), DATA_DIR: mkdtempSync(join(tmpdir(), `${name}-ops-`)) });
      closers.push(() => r.close());
      return r;
    },
  };
}

/** Reads until `ok` holds (every 100 ms, up to `ms`), failing with the last value read. */
export async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > end) assert.fail(`${what}: still ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}
