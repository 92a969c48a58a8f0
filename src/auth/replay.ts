// Replay protection for signed v3 requests that change state. The v3 signature covers X-Date,
// X-Login and the body (SVC2 also the method and the path) but nothing says a request is used
// once: a captured request could be sent again while its date is valid. Such a request is
// claimed by inserting a hash under the merchant's primary key in signed_requests: one index
// insert, atomic across processes. The copy that wins runs; its response is stored when sent; any
// later copy is answered with that response and `Idempotent-Replayed: true`, changing nothing. A
// copy arriving while the first still runs waits for it (then 409, changing nothing either).
//   What the hash is taken of is the route's replay rule (docs/security.md, Replay):
//   - 'signature' (money-moving calls: refund creation): the signature value alone, so that
//     nothing outside the signature (the path's spelling, the query, X-Idempotency-Key) makes
//     a captured request new;
//   - 'request' (the default for other v3 writes: sandbox transitions, notification resends):
//     method, the route as the router matched it with its parameters, X-Date, X-Login and body,
//     so that spellings of one path are one request. Not the signature alone: a plain SVC
//     signature over an empty body is the same for every path in the same second;
//   - 'none' (deposit creation): identical requests are distinct operations; X-Idempotency-Key
//     and invoice_id make retries safe.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../config/context.ts';
import { Batcher, batcherPerDatabase } from '../db/batcher.ts';
import type { Queryable } from '../db/db.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request claimed its hash: its response is stored for the copies. */
    replayClaim?: { merchantId: number; hash: string };
  }
  interface FastifyContextConfig {
    /** What makes two requests to this v3 write one (see above); 'request' unless said. */
    replayRule?: ReplayRule;
  }
}

export type ReplayRule = 'signature' | 'request' | 'none';

export const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The route a request reached, with its parameters, independent of how the path was spelled
 * (case, trailing or doubled slashes, percent-encoding, the query, an id's leading zeros): the
 * router already decided which route and parameters it means.
 */
export function canonicalRoute(request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, unknown>;
  return (request.routeOptions.url ?? '').replace(/:(\w+)/g, (_, name: string) => {
    const v = String(params[name] ?? '');
    return encodeURIComponent(/^\d+$/.test(v) ? v.replace(/^0+(?=\d)/, '') : v);
  });
}

export function requestHash(parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) {
    // Length-prefixed, so that no two different part lists hash alike.
    const b = Buffer.isBuffer(p) ? p : Buffer.from(p, 'utf8');
    h.update(`${b.length}:`).update(b);
  }
  return h.digest('hex');
}

/**
 * The claim and the stored response commit without waiting for their own WAL flush
 * (synchronous_commit off for that statement's transaction alone), so a sandbox transition or a
 * resend waits for one flush, its own, instead of three (the hot-accounts bench found completions
 * waiting on WALSync for the two bookkeeping commits). Nothing the client was told can be lost by
 * it: the write the request makes commits with synchronous_commit on after the claim, and flushing
 * the WAL up to its commit flushes the claim's too; a claim lost in a crash before that write
 * committed protected nothing yet. A stored response lost in a crash is the case the onSend hook
 * below already answers (a copy is told 409 and changes nothing; the claim expires).
 */
const WITHOUT_FLUSH = `(SELECT set_config('synchronous_commit', 'off', true)) AS without_flush`;

export type Claim = { claimed: true } | { claimed: false; stored: { status: number; content_type: string | null; body: string } | null };

type ClaimItem = { merchantId: number; hash: string; now: Date; expiresAt: Date };

// Concurrent requests claim in one statement, and store their responses in another: under load
// the two bookkeeping statements of every signed write were as many round trips and transactions
// as the write itself (the hot-accounts bench's sandbox approvals). A claim past its expiry is
// taken over as if it were new (its request is refused by date now); with several requests in
// one statement the earliest `now` among them decides, so none takes over a claim early.
// The same request twice in one statement fails it as a whole (a row is not updated twice), and
// the batcher then claims each alone: the first wins, the copy finds its claim.
const claimWriter = batcherPerDatabase<ClaimItem, boolean>((ctx) => new Batcher(async (items) => {
  const { rows } = await ctx.db.query<{ merchant_id: number; request_hash: string }>(
    `INSERT INTO signed_requests (merchant_id, request_hash, expires_at)
     SELECT v.merchant_id, v.request_hash, v.expires_at FROM unnest($1::integer[], $2::text[], $3::timestamptz[]) AS v(merchant_id, request_hash, expires_at), ${WITHOUT_FLUSH}
     ON CONFLICT (merchant_id, request_hash) DO UPDATE SET expires_at = EXCLUDED.expires_at, status = NULL, content_type = NULL, body = NULL
       WHERE signed_requests.expires_at < $4
     RETURNING merchant_id, request_hash`,
    [items.map((i) => i.merchantId), items.map((i) => i.hash), items.map((i) => i.expiresAt), new Date(Math.min(...items.map((i) => i.now.getTime())))],
    {
      name: 'caja_replay_claim',
      // Committed with its answer lost (a failover, src/db/db.ts): the claims that are this
      // statement's carry its expiry.
      reread: () => ctx.db.query(
        `SELECT s.merchant_id, s.request_hash FROM signed_requests s
         JOIN unnest($1::integer[], $2::text[], $3::timestamptz[]) AS v(merchant_id, request_hash, expires_at)
           ON s.merchant_id = v.merchant_id AND s.request_hash = v.request_hash AND s.expires_at = v.expires_at AND s.status IS NULL`,
        [items.map((i) => i.merchantId), items.map((i) => i.hash), items.map((i) => i.expiresAt)],
      ),
    },
  );
  const claimed = new Set(rows.map((r) => `${r.merchant_id}:${r.request_hash}`));
  return items.map((i) => claimed.has(`${i.merchantId}:${i.hash}`));
}, { maxBatch: 64, maxInFlight: 2 }));

/** Claims `hash` for the merchant until `expiresAt`, or reports the first copy's response. */
export async function claimRequest(ctx: AppContext, merchantId: number, hash: string, now: Date, expiresAt: Date): Promise<Claim> {
  if (await claimWriter(ctx).submit({ merchantId, hash, now, expiresAt })) return { claimed: true };
  const prior = await ctx.db.query<{ status: number | null; content_type: string | null; body: string | null }>(
    `SELECT status, content_type, body FROM signed_requests WHERE merchant_id = $1 AND request_hash = $2`,
    [merchantId, hash],
  );
  const p = prior.rows[0];
  return { claimed: false, stored: p && p.status !== null ? { status: p.status, content_type: p.content_type, body: p.body ?? '' } : null };
}

type StoredResponse = { merchantId: number; hash: string; status: number; contentType: string | null; body: string };

const responseWriter = batcherPerDatabase<StoredResponse, null>((ctx) => new Batcher(async (items) => {
  await ctx.db.query(
    `UPDATE signed_requests s SET status = v.status, content_type = v.content_type, body = v.body
     FROM unnest($1::integer[], $2::text[], $3::integer[], $4::text[], $5::text[]) AS v(merchant_id, request_hash, status, content_type, body), ${WITHOUT_FLUSH}
     WHERE s.merchant_id = v.merchant_id AND s.request_hash = v.request_hash`,
    [items.map((i) => i.merchantId), items.map((i) => i.hash), items.map((i) => i.status), items.map((i) => i.contentType), items.map((i) => i.body)],
    // Storing the same answers again changes nothing: nothing to read back.
    { name: 'caja_replay_store', reread: async () => ({ rows: [], rowCount: items.length }) },
  );
  return items.map(() => null);
}, { maxBatch: 64, maxInFlight: 2 }));

/** How long a copy waits for the first request's answer before it is told to retry. */
const IN_FLIGHT_WAIT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Outcome = { claimed: true } | { claimed: false; stored: { status: number; content_type: string | null; body: string } } | { claimed: false; stored: null };

/**
 * Claims, or waits while the first copy runs (taking over its claim if it failed and released
 * it), as a request with an idempotency key does. `stored: null` after the wait: still running.
 */
export async function claimOrWait(ctx: AppContext, merchantId: number, hash: string, now: Date, expiresAt: Date): Promise<Outcome> {
  const giveUp = Date.now() + IN_FLIGHT_WAIT_MS;
  for (;;) {
    const claim = await claimRequest(ctx, merchantId, hash, now, expiresAt);
    if (claim.claimed || claim.stored || Date.now() > giveUp) return claim;
    await sleep(25);
  }
}

/** Gives a claim up: the request failed and changed nothing, so the same request may run again. */
export async function releaseClaim(q: Queryable, claim: { merchantId: number; hash: string }): Promise<void> {
  await q.query(`DELETE FROM signed_requests WHERE merchant_id = $1 AND request_hash = $2`, [claim.merchantId, claim.hash]);
}

/** Answers a copy with the first response. */
export function sendStored(reply: FastifyReply, stored: { status: number; content_type: string | null; body: string }): FastifyReply {
  reply.header('Idempotent-Replayed', 'true').status(stored.status);
  if (stored.content_type) reply.type(stored.content_type);
  return reply.send(stored.body);
}

/**
 * Stores the response of a claimed request. A failed request (4xx, 5xx) changed nothing, so its
 * claim is released instead: the same request may run again.
 *
 * This bookkeeping runs after the handler: whatever it meets (the database gone in a failover),
 * the client gets the handler's answer. A 2xx reports a write that committed; telling the client
 * it failed would invite a second one. When the update fails the claim keeps no response: a copy
 * of the request waits, is told 409 (changing nothing), and the claim expires with its X-Date.
 */
export function registerReplayStore(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = request.replayClaim;
    if (!claim) return payload;
    request.replayClaim = undefined;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload === null || payload === undefined ? '' : null;
    try {
      if (reply.statusCode >= 400 || body === null) {
        await releaseClaim(ctx.db, claim);
        return payload;
      }
      const contentType = reply.getHeader('content-type');
      await responseWriter(ctx).submit({ ...claim, status: reply.statusCode, contentType: typeof contentType === 'string' ? contentType : null, body });
    } catch (err) {
      request.log.warn({ err, status: reply.statusCode }, 'replay store: the response was not recorded; the claim expires by itself');
    }
    return payload;
  });
}

/**
 * Expired claims are of no use: the requests they protect are refused by their date by now.
 * Deleted in batches of `batchRows` (each its own short statement, SKIP LOCKED so that processes
 * running it together split the work), from those expired before `before` (now less the
 * CAJA_RETENTION_REPLAY_GRACE_HOURS an operator keeps them for). Not archived: a claim holds a
 * response the client already got and protects nothing once expired (docs/operations.md).
 */
export async function purgeExpiredRequests(q: Queryable, before: Date, batchRows = 1000): Promise<number> {
  let purged = 0;
  for (;;) {
    const r = await q.query(
      `DELETE FROM signed_requests WHERE (merchant_id, request_hash) IN (
         SELECT merchant_id, request_hash FROM signed_requests WHERE expires_at < $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, batchRows],
    );
    purged += r.rowCount;
    if (r.rowCount < batchRows) return purged;
  }
}
