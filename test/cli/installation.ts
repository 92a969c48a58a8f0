// A fresh installation on the embedded database for the CLI's operator and token tests
// (test/cli/operators.test.ts, test/cli/tokens.test.ts): a migrated DATA_DIR, `caja …` commands
// run in the test's process or as the real program, and a real `caja start` on that data
// directory, stopped again before a command that needs the database (the data directory's lock).
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { totpCode } from '../../src/backoffice/totp.ts';
import { OpsClient } from '../ops/helpers.ts';
import { CAJA_CLI } from '../helpers/programs.ts';
import { migratedDataDir } from '../helpers/data-dir.ts';
import { cajaInProcess, type CliResult } from '../helpers/cli.ts';

/** A port nothing listens on now: `caja start` takes it each time it is started. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface Installation {
  /** The started server's address (the same port at every start). */
  base: string;
  /** `caja …args` in this process (test/helpers/cli.ts). */
  caja(args: string[]): Promise<CliResult>;
  /** `caja …args` as the real program, for its own exit code and streams. */
  cajaProcess(args: string[]): Promise<CliResult>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Enrols through a link printed by the CLI (its path, on this server): the password chosen, the secret shown, its code. */
  enrol(link: string, password: string): Promise<string>;
}

export async function installation(prefix: string): Promise<Installation> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !k.startsWith('CAJA_') && k !== 'DATABASE_URL' && k !== 'TEST_DATABASE_URL' && v !== undefined) as [string, string][]),
    DATA_DIR: await migratedDataDir(prefix),
    CAJA_ENV: 'staging',
    LOG_LEVEL: 'silent',
  };
  let server: ChildProcess | undefined;

  async function cajaProcess(args: string[]): Promise<CliResult> {
    try {
      const r = await promisify(execFile)(process.execPath, [CAJA_CLI, ...args], { env });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  async function start(): Promise<void> {
    server = spawn(process.execPath, [CAJA_CLI, 'start'], { env: { ...env, PORT: String(port), CAJA_WORKERS: 'false' }, stdio: 'ignore' });
    // Up in a second or two on a quiet machine; on one loaded by other work, half a minute or more.
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (server.exitCode !== null) throw new Error(`caja start exited (${server.exitCode})`);
      try {
        if ((await fetch(`${base}/health`)).ok) return;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('caja start did not answer within 2 minutes');
  }

  async function stop(): Promise<void> {
    const p = server;
    server = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  }

  async function enrol(link: string, password: string): Promise<string> {
    const path = new URL(link).pathname;
    const c = new OpsClient(base);
    const page = await c.get(path);
    assert.equal(page.status, 200, page.html.slice(0, 300));
    const secret = /<dd class="secret">([A-Z2-7]{32})<\/dd>/.exec(page.html)![1]!;
    const done = await c.request('POST', path, new URLSearchParams({ password, again: password, code: totpCode(secret, new Date()) }));
    assert.equal(done.url, '/ops/login', done.html.slice(0, 300));
    return secret;
  }

  return { base, caja: (args) => cajaInProcess(args, env), cajaProcess, start, stop, enrol };
}
