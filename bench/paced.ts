// An open-loop load at a fixed rate, evenly spaced, for latency below saturation. autocannon's
// `overallRate` lets each connection send its share of a second's requests as fast as it can when
// the second starts, then idle: bursts of the whole rate at once, whose queueing is what its p99
// then shows. Here request i is due at start + i/rate, and its latency counts from that moment, so
// a server that falls behind is charged for the wait (no coordinated omission).
//   The load runs `warmup` seconds before the measured ones, at the same rate and without a pause,
// and those requests are not counted: the first second after a change of load (the generator's
// own code still being compiled, the server's batches and pools settling) showed p99 near 100 ms
// that no later second did, so without it the figure measured the start, not the rate.
import { connect, type Socket } from 'node:net';

export interface PacedRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface PacedResult {
  rate_per_s: number;
  warmup_s: number;
  requests: number;
  errors: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** One request as bytes on the wire: HTTP/1.1, keep-alive, its body's length. */
function serialize(r: PacedRequest, host: string): Buffer {
  const body = Buffer.from(r.body ?? '', 'utf8');
  const head = Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return Buffer.concat([Buffer.from(`${r.method} ${r.path} HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n${head}content-length: ${body.length}\r\n\r\n`, 'latin1'), body]);
}

/**
 * How many bytes of `buf` the first complete response takes, and its status; null while it is
 * incomplete. Answers carry Content-Length (Fastify sets it for every body it sends).
 */
function completeResponse(buf: Buffer): { length: number; status: number } | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.toString('latin1', 0, end);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (!length) throw new Error(`response without Content-Length: ${head.split('\r\n')[0]}`);
  const total = end + 4 + Number(length[1]);
  return buf.length < total ? null : { length: total, status: Number(head.slice(9, 12)) };
}

export async function paced(url: string, rate: number, seconds: number, next: () => PacedRequest, connections = 64, warmup = 2): Promise<PacedResult> {
  // Plain sockets and requests serialized before the clock starts, as autocannon does: node's
  // HTTP client took ≈65 µs of CPU a request, CPU the server (which shares the machine's two
  // cores with the generator and the database) then did not have.
  const target = new URL(url);
  const unmeasured = Math.round(rate * warmup);
  const total = unmeasured + Math.max(1, Math.round(rate * seconds));
  const prepared = Array.from({ length: total }, () => serialize(next(), target.host));
  const latencies: number[] = [];
  let errors = 0;
  let finished = 0;
  const waiting: number[] = [];
  let waitingAt = 0;
  const start = performance.now();
  const dueOf = (i: number) => start + (i * 1000) / rate;
  let allDone!: () => void;
  const done = new Promise<void>((r) => (allDone = r));

  const settle = (i: number, ok: boolean) => {
    if (!ok) errors++;
    else if (i >= unmeasured) latencies.push(performance.now() - dueOf(i));
    if (++finished === total) allDone();
  };

  interface Conn { socket: Socket; current: number; buf: Buffer }
  const open = (): Conn => {
    const conn: Conn = { socket: connect(Number(target.port), target.hostname), current: -1, buf: Buffer.alloc(0) };
    conn.socket.setNoDelay(true);
    conn.socket.on('data', (chunk: Buffer) => {
      conn.buf = conn.buf.length ? Buffer.concat([conn.buf, chunk]) : chunk;
      const res = completeResponse(conn.buf);
      if (!res || conn.current < 0) return;
      conn.buf = conn.buf.subarray(res.length);
      const i = conn.current;
      conn.current = -1;
      settle(i, res.status < 300);
      take(conn);
    });
    conn.socket.on('error', () => {});
    conn.socket.on('close', () => {
      // A connection the server closed: its request failed; a new one takes its place.
      if (conn.current >= 0) settle(conn.current, false);
      const i = pool.indexOf(conn);
      if (finished < total && i >= 0) {
        pool[i] = open();
        take(pool[i]!);
      }
    });
    return conn;
  };
  const take = (conn: Conn) => {
    if (conn.current >= 0 || waitingAt >= waiting.length) return;
    conn.current = waiting[waitingAt++]!;
    conn.socket.write(prepared[conn.current]!);
  };
  const pool = Array.from({ length: connections }, open);

  let sent = 0;
  const timer = setInterval(() => {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    for (; sent < due; sent++) waiting.push(sent);
    for (const conn of pool) take(conn);
    if (sent >= total) clearInterval(timer);
  }, 1);
  await done;
  for (const conn of pool) conn.socket.destroy();
  return { rate_per_s: rate, warmup_s: warmup, requests: latencies.length, errors, ...percentiles(latencies) };
}

/** p50, p99 and max of latencies in ms (sorted in place), to a tenth of a ms. */
export function percentiles(ms: number[]): { p50_ms: number; p99_ms: number; max_ms: number } {
  ms.sort((a, b) => a - b);
  const at = (q: number) => Math.round((ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0) * 10) / 10;
  return { p50_ms: at(0.5), p99_ms: at(0.99), max_ms: at(1) };
}
