// One POST of a notification, connected to an address already checked by the address guard.
// node:http is used rather than fetch because it takes a `lookup` per request (pinning the
// connection to the checked address) and never follows redirects: a 3xx is just a status.
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { ResolvedTarget } from './address-guard.ts';

export interface PostResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first characters of the response body. */
  excerpt: string | null;
}

const EXCERPT_CHARS = 500;
// Bodies past this are not read; the connection is dropped instead of drained.
const READ_LIMIT = 16 * 1024;

// Keep-alive pools: a merchant receiving many notifications gets them over a few connections
// instead of a TLS handshake each. Sockets are made through the pinned lookup below. The worker's
// per-origin gate already bounds the connections to one endpoint (CAJA_NOTIFY_PER_ORIGIN_CONCURRENCY,
// at most 1000), so the pool neither queues requests behind a lower limit nor closes sockets the
// gate will use again at once: with 16 free sockets kept, every burst above 16 to one endpoint
// opened new connections (and closed them after). Idle sockets still close after 30 s.
const POOL = { keepAlive: true, maxSockets: 1000, maxFreeSockets: 1000, timeout: 30_000 };
const agents = { http: new http.Agent(POOL), https: new https.Agent(POOL) };

/** A lookup that answers only the address the guard checked, whatever DNS says now. */
function pinnedLookup(target: ResolvedTarget): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/**
 * How a kept-alive connection the endpoint had already closed fails when a request is written on
 * it: the close and the request crossed (the endpoint's idle timeout ran out just then, or this
 * process was too busy to see its close in time), and the request was never read.
 */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export function postNotification(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostResult> {
  const started = performance.now();
  const payload = Buffer.from(body, 'utf8');
  const secure = target.url.protocol === 'https:';
  return new Promise((resolve) => {
    let settled = false;
    let req: http.ClientRequest;
    const finish = (r: Omit<PostResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, latencyMs: Math.round(performance.now() - started) });
    };
    const send = () => {
      let answered = false;
      req = (secure ? https : http).request(
        {
          method: 'POST',
          protocol: target.url.protocol,
          host: target.hostname,
          port: target.url.port || (secure ? 443 : 80),
          path: `${target.url.pathname}${target.url.search}`,
          headers: { ...headers, 'Content-Length': String(payload.length), Host: target.url.host },
          agent: secure ? agents.https : agents.http,
          lookup: pinnedLookup(target),
          // SNI carries names only; an IP literal URL is checked against the certificate's IP SANs.
          ...(secure && !isIP(target.hostname) ? { servername: target.hostname } : {}),
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () => {
            const text = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS);
            finish({ statusCode: res.statusCode ?? null, error: null, excerpt: text });
          };
          res.on('data', (chunk: Buffer) => {
            if (size < READ_LIMIT) chunks.push(chunk);
            size += chunk.length;
            if (size >= READ_LIMIT) {
              // Enough for the excerpt; the rest is not our business.
              done();
              res.destroy();
            }
          });
          res.on('end', done);
          res.on('error', () => done());
          res.on('close', done);
        },
      );
      const current = req;
      current.on('error', (err: NodeJS.ErrnoException) => {
        // A pooled connection that turns out closed before any answer: the same request again,
        // within the same deadline, on another connection (the pool's next idle one, which may be
        // stale too, else a new one; a new connection's failure is the attempt's). Recording it as
        // a failed attempt instead held the notification, and every later one of its subject, for
        // the first retry step (30 s) and paused the endpoint. Should the endpoint have read it
        // after all, this is one more delivery, which at-least-once allows (Caja-Notification-Id
        // is the same).
        if (!settled && !answered && current.reusedSocket && err.code && STALE_CONNECTION.has(err.code)) {
          send();
          return;
        }
        finish({ statusCode: null, error: err.code ? `${err.code}: ${err.message}` : err.message, excerpt: null });
      });
      current.end(payload);
    };
    // One deadline for connecting, sending and reading, not per socket event.
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `timed out after ${timeoutMs} ms`, excerpt: null });
      req.destroy(new Error('timeout'));
    }, timeoutMs);
    send();
  });
}
