// A real HTTP receiver on 127.0.0.1 standing in for merchant endpoints, and shortcuts to write
// outbox rows the way features do (recordEvent inside a transaction).
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Queryable } from '../../src/db/db.ts';
import type { AppContext } from '../../src/config/context.ts';
import { recordEvent } from '../../src/notifications/outbox.ts';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Caja-Notification-Id */
  id: number;
}

export interface Reply {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer only after this promise settles (a slow or hung endpoint). */
  hold?: Promise<unknown>;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Chooses the answer per request; default 200 "ok". */
  respond: (r: Received, nth: number) => Reply | Promise<Reply>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    respond: () => ({ status: 200, body: 'ok' }),
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        id: Number(req.headers['caja-notification-id']),
      };
      receiver.received.push(r);
      const nth = receiver.received.filter((x) => x.id === r.id).length;
      const reply = await receiver.respond(r, nth);
      if (reply.hold) await reply.hold.catch(() => {});
      if (res.destroyed) return;
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...(reply.headers ?? {}) });
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

let subjectSeq = 1000;
/** A subject id no other test of the file uses. */
export const nextSubjectId = () => ++subjectSeq;

export interface EventSpec {
  merchantId: number;
  url: string;
  subjectId?: number;
  subjectType?: 'deposit' | 'refund' | 'cashout';
  body?: string;
  signingSet?: 'deposits' | 'cashouts';
  type?: string;
}

export async function addEvent(q: Queryable, e: EventSpec): Promise<{ eventId: number; body: string; subjectId: number }> {
  const subjectId = e.subjectId ?? nextSubjectId();
  const subjectType = e.subjectType ?? 'deposit';
  const body = e.body ?? JSON.stringify({ [`${subjectType}_id`]: subjectId });
  const eventId = await recordEvent(q, {
    merchantId: e.merchantId,
    type: e.type ?? `${subjectType}.status_changed`,
    subjectType,
    subjectId,
    data: { body },
    notifications: [
      {
        kind: subjectType === 'cashout' ? 'cashout' : `v3.${subjectType}`,
        url: e.url,
        contentType: subjectType === 'cashout' ? 'application/x-www-form-urlencoded' : 'application/json',
        body,
        signingSet: e.signingSet ?? (subjectType === 'cashout' ? 'cashouts' : 'deposits'),
      },
    ],
  });
  return { eventId, body, subjectId };
}

/** Commits one event with its notification, as a feature would. */
export function commitEvent(ctx: AppContext, e: EventSpec) {
  return ctx.db.tx((q) => addEvent(q, e));
}

export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function statusOf(ctx: AppContext, notificationId: number): Promise<string> {
  const { rows } = await ctx.db.query<{ status: string }>('SELECT status FROM notifications WHERE id = $1', [notificationId]);
  return rows[0]?.status;
}

export async function notificationIdOf(ctx: AppContext, eventId: number): Promise<number> {
  const { rows } = await ctx.db.query<{ id: number }>('SELECT id FROM notifications WHERE event_id = $1', [eventId]);
  return rows[0].id;
}

/** Checks `Caja-Signature: t=<unix>,v1=<hex>` the way a merchant would (independent of src/). */
export function verifyCajaSignature(header: string | string[] | undefined, body: string, secret: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!m) return false;
  return createHmac('sha256', secret).update(`${m[1]}.${body}`).digest('hex') === m[2];
}

/** Fast settings for a test server: retries in fractions of a second, quick polling. */
export const FAST_ENV = {
  CAJA_NOTIFY_RETRY_SECONDS: '0.2,0.4',
  CAJA_NOTIFY_POLL_MS: '20',
  CAJA_NOTIFY_TIMEOUT_MS: '1500',
  CAJA_NOTIFY_MAX_AGE_SECONDS: '3',
  CAJA_NOTIFY_LEASE_SECONDS: '2',
};
