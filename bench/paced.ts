// An open-loop load at a fixed rate, evenly spaced, for latency below saturation. autocannon's
// `overallRate` lets each connection send its share of a second's requests as fast as it can when
// the second starts, then idle: bursts of the whole rate at once, whose queueing is what its p99
// then shows. Here request i is due at start + i/rate, and its latency counts from that moment, so
// a server that falls behind is charged for the wait (no coordinated omission).
//   The load runs `warmup` seconds before the measured ones, at the same rate and without a pause,
// and those requests are not counted: the first second after a change of load (the generator's
// own code still being compiled, the server's batches and pools settling) showed p99 near 100 ms
// that no later second did, so without it the figure measured the start, not the rate.
import http from 'node:http';

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

export async function paced(url: string, rate: number, seconds: number, next: () => PacedRequest, connections = 64, warmup = 2): Promise<PacedResult> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const unmeasured = Math.round(rate * warmup);
  const total = unmeasured + Math.max(1, Math.round(rate * seconds));
  const latencies: number[] = [];
  let errors = 0;
  const inFlight = new Set<Promise<void>>();

  // Built (bodies signed) before the clock starts, so that the generator's own work during the
  // run is only sending: on a 2-core machine it competes with the server for the CPU.
  const prepared = Array.from({ length: total }, next);
  const send = (i: number, due: number) => {
    const r = prepared[i]!;
    const p = new Promise<void>((resolve) => {
      const req = http.request(
        {
          host: target.hostname, port: target.port, path: r.path, method: r.method, agent,
          headers: { ...r.headers, ...(r.body !== undefined ? { 'content-length': Buffer.byteLength(r.body) } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (i >= unmeasured) latencies.push(performance.now() - due);
            if (res.statusCode! >= 300) errors++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(r.body);
    });
    inFlight.add(p);
    void p.then(() => inFlight.delete(p));
  };

  const start = performance.now();
  let sent = 0;
  await new Promise<void>((done) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
      for (; sent < due; sent++) send(sent, start + (sent * 1000) / rate);
      if (sent >= total) {
        clearInterval(timer);
        done();
      }
    }, 1);
  });
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
  return { rate_per_s: rate, warmup_s: warmup, requests: latencies.length, errors, p50_ms: at(0.5), p99_ms: at(0.99), max_ms: at(1) };
}
