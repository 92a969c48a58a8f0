// What the provider simulators' test helpers (pix-simulator.ts, stp-simulator.ts) share: the
// simulator runs as a separate process (its own TLS and keys, as the provider would), prints one
// JSON line of where it listens once ready, is driven through its control port, and never
// outlives the test process.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Json = any;

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

/** Starts a simulator (`main`: node's arguments for its entry point, from simulatorArgs) and waits for its first line: the JSON of where it listens. */
export function spawnSimulator<Info>(label: string, main: string[], args: string[], stderr: 'inherit' | 'pipe' = 'pipe'): Promise<{ child: ChildProcess; info: Info }> {
  const child = spawn(process.execPath, [...main, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', stderr] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let err = '';
  child.stderr?.on('data', (d) => {
    err = (err + d).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} did not start within 60 s\n${err}`));
    }, 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        resolve({ child, info: JSON.parse(out.slice(0, nl)) as Info });
      } catch (e) {
        child.kill('SIGKILL');
        reject(new Error(`${label} printed ${out.slice(0, nl)}: ${(e as Error).message}`));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited (${code ?? signal}) before listening\n${err}`));
    });
  });
}

/** A call to a simulator's control port (read each time: a restarted simulator may move). */
export function controlCaller(label: string, controlUrl: () => string) {
  return async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(controlUrl() + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${label} ${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM, then SIGKILL if it has not exited within 5 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await done;
  clearTimeout(t);
}

/** SIGKILL: the process dies mid-whatever, as a crash would. */
export async function killChild(child: ChildProcess): Promise<void> {
  const done = exited(child);
  child.kill('SIGKILL');
  await done;
}
