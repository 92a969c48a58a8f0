// Who used the CPU during a phase: the server's processes, PostgreSQL's and the load generator
// (this process: autocannon runs in it), per request. Server, database and load generator share
// the machine's cores, so a phase's rate is set by all three, not by the server alone: a Pix
// creation measured 277 µs of server CPU, 197 µs of PostgreSQL's and 53 µs of the generator's.
// Read from /proc (Linux); PostgreSQL's figure counts every `postgres` process on the machine,
// so it includes other databases' work if anything else runs.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const TICKS = 100;

/** A process's CPU, and that of its children it has reaped (utime, stime, cutime, cstime). */
function cpuTimes(pid: string): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (which may hold spaces): utime is the 12th.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { own: (Number(f[11]) + Number(f[12])) / TICKS, children: (Number(f[13]) + Number(f[14])) / TICKS };
}

function cpuSeconds(pid: string): number {
  return cpuTimes(pid).own;
}

/**
 * Every postgres process's CPU, with that of the backends which ended (pgbench's connections
 * close when it exits): the postmaster reaps them, so theirs is in its children's time.
 */
function postgresSeconds(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const t = cpuTimes(pid);
      total += t.own + t.children;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

/**
 * The CPU of each backend connected to one database (its process title names it), by pid: on a
 * machine other work shares, the figure that is the server's own.
 */
function databaseSeconds(database: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      // "postgres: 15/main: <user> <database> <client> <state>"
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\s\0]+/);
      if (title[3] === database) out.set(pid, cpuSeconds(pid));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return out;
}

/** What the backends seen at the end used since the start (a backend that ended meanwhile is not counted). */
function databaseDelta(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, s] of after) total += s - (before.get(pid) ?? 0);
  return total;
}

function serverSeconds(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += cpuSeconds(String(pid));
    } catch {
      // A server process that ended during the phase: its CPU is no longer readable.
    }
  }
  return total;
}

export interface CpuSplit {
  server_us_per_request: number;
  postgres_us_per_request: number;
  load_generator_us_per_request: number;
  /** With a database named: its backends' CPU alone (those still connected at the end). */
  database_us_per_request?: number;
}

/** CPU of this process and of the children it waited for (pgbench, run with spawnSync). */
function ownSeconds(): { self: number; children: number } {
  const t = cpuTimes('self');
  return { self: t.own, children: t.children };
}

type Snapshot = { server: number; postgres: number; database: Map<string, number>; own: { self: number; children: number } };

function snapshot(serverPids: number[], database?: string): Snapshot {
  return { server: serverSeconds(serverPids), postgres: postgresSeconds(), database: database ? databaseSeconds(database) : new Map(), own: ownSeconds() };
}

const perItem = (seconds: number, n: number) => Math.round((seconds * 1e6) / Math.max(1, n));

/**
 * Runs an HTTP phase and splits the CPU used during it over the requests it reports; with
 * `database`, also that database's backends' CPU alone.
 */
export async function withCpuSplit<T extends { requests: number }>(serverPids: () => number[], phase: () => Promise<T>, database?: string): Promise<T & { cpu: CpuSplit | { skipped: string } }> {
  let before: Snapshot;
  try {
    before = snapshot(serverPids(), database);
  } catch (err) {
    return { ...(await phase()), cpu: { skipped: (err as Error).message } };
  }
  const result = await phase();
  const after = snapshot(serverPids(), database);
  return {
    ...result,
    cpu: {
      server_us_per_request: perItem(after.server - before.server, result.requests),
      postgres_us_per_request: perItem(after.postgres - before.postgres, result.requests),
      load_generator_us_per_request: perItem(after.own.self - before.own.self, result.requests),
      ...(database ? { database_us_per_request: perItem(databaseDelta(before.database, after.database), result.requests) } : {}),
    },
  };
}

export interface PgbenchCpu {
  postgres_us_per_transaction: number;
  pgbench_us_per_transaction: number;
}

/** Runs pgbench (synchronously) and splits the CPU used over its transactions. */
export function withPgbenchCpu<T extends { transactions: number }>(phase: () => T): T & { cpu: PgbenchCpu | { skipped: string } } {
  let before: Snapshot;
  try {
    before = snapshot([]);
  } catch (err) {
    return { ...phase(), cpu: { skipped: (err as Error).message } };
  }
  const result = phase();
  const after = snapshot([]);
  return {
    ...result,
    cpu: {
      postgres_us_per_transaction: perItem(after.postgres - before.postgres, result.transactions),
      pgbench_us_per_transaction: perItem(after.own.children - before.own.children, result.transactions),
    },
  };
}
