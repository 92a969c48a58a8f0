// SQL of notification delivery: claiming due rows under a lease, recording outcomes, listing,
// resending, and the event feed. Every statement is one round trip and keyed so that several
// processes can run it against one PostgreSQL at the same time.
import { type Audit, recordAudit } from '../audit/audit.ts';
import type { Db, Queryable } from '../db/db.ts';
import { missingId } from '../retention/horizons.ts';

export interface ClaimedRow {
  id: number;
  event_id: number;
  merchant_id: number;
  url: string;
  content_type: string;
  body: string;
  signing_set: 'deposits' | 'cashouts';
  /** This attempt's number (1 for the first). */
  attempt_count: number;
  origin: string;
  /** Set when an earlier claim's lease ran out without an outcome (its worker died). */
  prev_lease: Date | null;
  secret_enc: string | null;
  /** The secret a rotation replaced, while its overlap lasts: notifications are signed with both. */
  previous_secret_enc: string | null;
}

export interface ClaimOptions {
  limit: number;
  leaseSeconds: number;
  token: string;
  /** Origins this process will not call now (backing off, or at their in-flight limit). */
  excludedOrigins: string[];
  perOriginLimit: number;
  /** In-flight deliveries per origin in this process, counted against perOriginLimit. */
  inFlightByOrigin: Record<string, number>;
}

/**
 * Leases up to `limit` due notifications. A row is due when pending, its time has come, no
 * live lease holds it, and no earlier pending row of the same subject exists (per-subject
 * order: a deposit's second notification waits for its first to be delivered or to fail).
 * SKIP LOCKED lets concurrent claimers pass over each other's rows instead of queueing.
 *
 * One statement in a transaction of its own, so one round trip (it was four: BEGIN, SET LOCAL,
 * the claim, COMMIT); pass the pool, not a transaction. A claim need not survive a crash: if its
 * commit is lost, the rows are simply unleased and claimed again, so its commit does not wait
 * for the WAL flush. The set_config (local to the statement's own transaction) is a qual that
 * depends on no row, evaluated once before the scan locks anything, so the commit, which reads
 * the setting, sees 'off'.
 */
export async function claimDue(db: Queryable, o: ClaimOptions): Promise<ClaimedRow[]> {
  const { rows } = await db.query<ClaimedRow>(CLAIM_SQL, claimParams(o));
  return rows.sort((a, b) => a.id - b.id);
}

/** The claim statement, exported for the test that checks its plan. */
export const CLAIM_SQL = `WITH cand AS (
     SELECT n.id, n.lease_until AS prev_lease, n.origin
     FROM notifications n
     WHERE n.status = 'pending' AND n.next_attempt_at <= now()
       AND (SELECT set_config('synchronous_commit', 'off', true)) = 'off'
       AND (n.lease_until IS NULL OR n.lease_until < now())
       AND NOT (coalesce(n.origin, '') = ANY($1::text[]))
       -- The head of its subject. A correlated min() (one probe of notifications_subject_idx
       -- per row looked at) rather than NOT EXISTS, which the planner turns into an anti-join
       -- over every pending row; this way the scan stops after the batch. '<=' means '=' here
       -- (the row is pending, so the min is at most its id), but the planner guesses an
       -- inequality keeps a third of the rows where it guessed '=' keeps 0.5 %: with that guess
       -- and a large backlog it thought the ordered index scan would have to read every due
       -- row, and sorted them all instead (35-60 ms a claim at 10,000 due rows, growing).
       AND n.id <= (SELECT min(p.id) FROM notifications p WHERE p.subject_key = n.subject_key AND p.status = 'pending')
     ORDER BY n.next_attempt_at, n.id
     LIMIT $2
     FOR UPDATE OF n SKIP LOCKED
   ), ranked AS (
     SELECT id, prev_lease, origin, row_number() OVER (PARTITION BY origin ORDER BY id) AS rn FROM cand
   ), chosen AS (
     SELECT id, prev_lease, origin FROM ranked
     WHERE rn <= $3::int - coalesce(($4::jsonb ->> coalesce(origin, ''))::int, 0)
     ORDER BY id
     LIMIT $5
   )
   UPDATE notifications n
      SET lease_until = now() + make_interval(secs => $6::float8), lease_token = $7, attempt_count = n.attempt_count + 1
     FROM chosen c
    WHERE n.id = c.id
   RETURNING n.id, n.event_id, n.merchant_id, n.url, n.content_type, n.body, n.signing_set, n.attempt_count,
             coalesce(c.origin, '') AS origin, c.prev_lease,
             (SELECT cr.secret_enc FROM credentials cr WHERE cr.merchant_id = n.merchant_id AND cr.set_name = n.signing_set) AS secret_enc,
             (SELECT cr.previous_secret_enc FROM credentials cr
               WHERE cr.merchant_id = n.merchant_id AND cr.set_name = n.signing_set AND cr.previous_expires_at > now()) AS previous_secret_enc`;

export function claimParams(o: ClaimOptions): unknown[] {
  return [
    o.excludedOrigins,
    // Look past rows of saturated origins so that other merchants' rows still get claimed.
    o.limit * 4,
    o.perOriginLimit,
    JSON.stringify(o.inFlightByOrigin),
    o.limit,
    o.leaseSeconds,
    o.token,
  ];
}

export interface AttemptOutcome {
  id: number;
  token: string;
  attemptNo: number;
  startedAt: Date;
  url: string;
  ok: boolean;
  /** No later attempt can succeed (e.g. an https-only policy and an http URL). */
  permanent: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  excerpt: string | null;
  /** Wait before the next attempt, when this one failed. */
  retryInSeconds: number;
  maxAgeSeconds: number;
}

/**
 * Records attempts and moves each notification on: delivered, pending again after its back-off,
 * or failed once the next try would fall past its maximum age. Many outcomes go in one
 * statement (one commit instead of one per delivery, which is what bounds throughput). An
 * attempt row is written even when the lease was lost (the request did go out); the
 * notification itself only by the lease holder. Answers each id's new status, null where the
 * lease had been lost.
 */
export async function finishAttempts(q: Queryable, outcomes: AttemptOutcome[]): Promise<Map<number, string | null>> {
  if (outcomes.length === 0) return new Map();
  // JSON rather than array parameters: both drivers pass one text value the same way.
  const json = JSON.stringify(
    outcomes.map((a) => ({
      id: a.id, token: a.token, ok: a.ok, permanent: a.permanent, retry_in: a.retryInSeconds, max_age: a.maxAgeSeconds,
      error: a.error, status_code: a.statusCode, attempt_no: a.attemptNo, started_at: a.startedAt.toISOString(), url: a.url,
      latency_ms: a.latencyMs, excerpt: a.excerpt,
    })),
  );
  const newStatus = `CASE WHEN v.ok THEN 'delivered'
      WHEN v.permanent OR now() + make_interval(secs => v.retry_in) > coalesce(n.resent_at, n.created_at) + make_interval(secs => v.max_age)
      THEN 'failed' ELSE 'pending' END`;
  const { rows } = await q.query<{ id: number; status: string | null }>(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id bigint, token text, ok boolean, permanent boolean, retry_in float8,
         max_age float8, error text, status_code int, attempt_no int, started_at timestamptz, url text, latency_ms int, excerpt text)
     ), upd AS (
       UPDATE notifications n
          SET status = ${newStatus},
              finished_at = CASE WHEN ${newStatus} = 'pending' THEN NULL ELSE now() END,
              next_attempt_at = CASE WHEN v.ok THEN n.next_attempt_at ELSE now() + make_interval(secs => v.retry_in) END,
              lease_until = NULL, lease_token = NULL, last_error = v.error, last_status_code = v.status_code
         FROM v
        WHERE n.id = v.id AND n.lease_token = v.token
       RETURNING n.id, n.status
     ), ins AS (
       INSERT INTO notification_attempts (notification_id, attempt_no, started_at, url, status_code, latency_ms, error, response_excerpt)
       SELECT id, attempt_no, started_at, url, status_code, latency_ms, error, excerpt FROM v
     )
     SELECT v.id, upd.status FROM v LEFT JOIN upd ON upd.id = v.id`,
    [json],
  );
  return new Map(rows.map((r) => [Number(r.id), r.status]));
}

/** One outcome; see finishAttempts. */
export async function finishAttempt(q: Queryable, a: AttemptOutcome): Promise<string | null> {
  return (await finishAttempts(q, [a])).get(a.id) ?? null;
}

/** Notes, on the notification's log, an attempt whose worker never reported back. */
export async function recordLostAttempt(q: Queryable, row: ClaimedRow): Promise<void> {
  await q.query(
    `INSERT INTO notification_attempts (notification_id, attempt_no, started_at, url, latency_ms, error)
     VALUES ($1, $2, $3, $4, 0, $5)`,
    [row.id, row.attempt_count - 1, row.prev_lease, row.url, 'no outcome: the delivering process stopped or lost its lease; retried'],
  );
}

export interface NotificationRow {
  id: number;
  event_id: number;
  merchant_id: number;
  subject_key: string;
  kind: string;
  url: string;
  content_type: string;
  body: string;
  signing_set: string;
  status: string;
  attempt_count: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  last_error: string | null;
  last_status_code: number | null;
  created_at: Date;
  finished_at: Date | null;
  resent_at: Date | null;
  event_type: string;
}

export interface AttemptRow {
  id: number;
  notification_id: number;
  attempt_no: number;
  started_at: Date;
  url: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

// The event's type is the notification's own copy (migration 098): for a notification written
// since, no month of events is read (the subquery is not executed). One written before 098 has
// none and is read from its event, until retention removes it; its event is there, as retention
// archives an event only once no notification names it.
const SELECT_NOTIFICATION = `SELECT n.id, n.event_id, n.merchant_id, n.subject_key, n.kind, n.url, n.content_type, n.body,
  n.signing_set, n.status, n.attempt_count, n.next_attempt_at, n.lease_until, n.last_error, n.last_status_code,
  n.created_at, n.finished_at, n.resent_at, COALESCE(n.event_type, (SELECT e.type FROM events e WHERE e.id = n.event_id)) AS event_type
  FROM notifications n`;

export interface ListFilter {
  merchantId: number;
  status?: string;
  before?: number;
  limit: number;
}

/** A merchant's notifications, newest first, each with its attempts. */
export async function listNotifications(q: Queryable, f: ListFilter) {
  const { rows } = await q.query<NotificationRow>(
    `${SELECT_NOTIFICATION}
     WHERE n.merchant_id = $1 AND ($2::text IS NULL OR n.status = $2) AND ($3::bigint IS NULL OR n.id < $3)
     ORDER BY n.id DESC LIMIT $4`,
    [f.merchantId, f.status ?? null, f.before ?? null, f.limit],
  );
  return withAttempts(q, rows);
}

/** One notification with its attempts; merchantId (when given) must own it. */
export async function getNotification(q: Queryable, id: number, merchantId?: number) {
  const { rows } = await q.query<NotificationRow>(
    `${SELECT_NOTIFICATION} WHERE n.id = $1 AND ($2::int IS NULL OR n.merchant_id = $2)`,
    [id, merchantId ?? null],
  );
  return rows[0] ? (await withAttempts(q, rows))[0] : null;
}

/**
 * The earliest created_at an attempt of notifications created at `createdAt` can have: the oldest
 * less FEED_MARGIN_MS. Reads of their attempts from there on read only the months' partitions that
 * can hold them. An attempt is written by a transaction that read its notification committed (the
 * claim, the outcome): it wrote after the notification's transaction began (the notification's
 * created_at), and migration 094 fails a transaction that writes an attempt an hour or more after
 * it began (the attempt's created_at). So an attempt's created_at is later than its notification's
 * less an hour; the rest of the day covers the clock stepping back. Attempts inserted with an
 * explicit created_at (restored from an archive keep their own, which kept the rule; back-dated by
 * hand) are outside the argument.
 */
export function attemptsSince(createdAt: Date[]): Date {
  return new Date(Math.min(...createdAt.map((t) => new Date(t).getTime())) - FEED_MARGIN_MS);
}

/** The notifications' attempts, from attemptsSince on (a parameter, so PostgreSQL plans only the months it allows). */
async function withAttempts(q: Queryable, rows: NotificationRow[]) {
  if (rows.length === 0) return [];
  const since = attemptsSince(rows.map((r) => r.created_at));
  const { rows: attempts } = await q.query<AttemptRow>(
    `SELECT id, notification_id, attempt_no, started_at, url, status_code, latency_ms, error, response_excerpt
     FROM notification_attempts WHERE notification_id = ANY($1::bigint[]) AND created_at >= $2
     ORDER BY notification_id, id`,
    [rows.map((r) => r.id), since],
  );
  const byId = new Map<number, AttemptRow[]>();
  for (const a of attempts) {
    const list = byId.get(a.notification_id) ?? [];
    list.push(a);
    byId.set(a.notification_id, list);
  }
  return rows.map((r) => ({ ...r, attempts: byId.get(r.id) ?? [] }));
}

/**
 * Makes a notification due now. A delivered or failed one becomes pending again with a fresh
 * retry window; a pending one skips the rest of its back-off. One being delivered right now
 * keeps its lease and finishes normally. Answers false when not found (or not the merchant's).
 * `audit` (a panel user's or an admin token's action, given the notification's merchant) is written in the same transaction.
 */
export async function resendNotification(db: Db, id: number, merchantId?: number, audit?: Audit<{ merchantId: number }>): Promise<boolean> {
  const resend = async (q: Queryable) => {
    const { rows } = await q.query<{ merchant_id: number }>(
      `UPDATE notifications
          SET status = 'pending', next_attempt_at = now(), resent_at = now(), finished_at = NULL
        WHERE id = $1 AND ($2::int IS NULL OR merchant_id = $2) RETURNING merchant_id`,
      [id, merchantId ?? null],
    );
    if (rows[0] && audit) await recordAudit(q, audit, { merchantId: rows[0].merchant_id });
    return rows.length > 0;
  };
  return audit ? db.tx(resend) : resend(db);
}

export interface FeedEvent {
  id: number;
  type: string;
  subject_type: string;
  subject_id: number;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * How far before the cursor's event the feed looks for the events after it. The feed pages in
 * commit order, (tx_id, id), and an event's created_at is its transaction's start (now()), so an
 * event after the cursor may be older than it: a transaction that began before the cursor's and
 * wrote its event later. The bound: let c be the cursor's event and e an event after it in
 * another transaction. tx_id_e > tx_id_c, and transaction ids are handed out in increasing order
 * as transactions first write, so e's transaction took its id after c's took its own, and c's
 * took it after c's transaction began: created_at_c <= (when c's id was taken) < (when e's id
 * was taken) <= (when e was written). Migration 094 fails any transaction that writes an event an
 * hour or more after it began: (when e was written) < created_at_e + 1 hour. Together:
 * created_at_e > created_at_c - 1 hour. The margin is a day: the rest covers the server's clock
 * stepping back (every time here is read from that one clock). Events inserted with an explicit
 * created_at (restored from an archive, with their old tx_id, or back-dated by hand) are outside
 * the argument; caja's own writers never give one.
 */
export const FEED_MARGIN_MS = 86_400_000;

/** Where a cursor's event is looked for first: a poller's cursor is almost always this recent. */
const RECENT_CURSOR_MS = 7 * 86_400_000;

/**
 * A merchant's events after a cursor (an event id it was given), in commit order. Only events
 * of transactions older than every running one are served (see 003_notifications.sql), so an
 * event can never commit behind a cursor already handed out. The cursor's event is looked for in
 * the last 7 days first (one or two months' partitions), then in every month; the page is read
 * from FEED_MARGIN_MS before its created_at on. The bounds are parameters, so PostgreSQL plans only
 * the months they allow. When the cursor is not one of this merchant's events: 'archived' if
 * retention took it (src/retention/), else 'unknown'.
 */
export async function eventsAfter(q: Queryable, merchantId: number, after: number | null, limit: number): Promise<FeedEvent[] | 'archived' | 'unknown'> {
  if (after === null) {
    const { rows } = await q.query<FeedEvent>(
      `SELECT id, type, subject_type, subject_id, data, created_at FROM events
       WHERE merchant_id = $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY tx_id, id LIMIT $2`,
      [merchantId, limit],
    );
    return rows;
  }
  const cursor = await cursorEvent(q, merchantId, after);
  if (cursor === null) return missingId(q, 'events', merchantId, after);
  const { rows } = await q.query<FeedEvent>(
    `SELECT id, type, subject_type, subject_id, data, created_at FROM events
     WHERE merchant_id = $1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
       AND (tx_id, id) > ($2::xid8, $3::bigint) AND created_at >= $4
     ORDER BY tx_id, id LIMIT $5`,
    [merchantId, cursor.tx_id, after, cursor.since, limit],
  );
  return rows;
}

/** The cursor's event: its transaction, and FEED_MARGIN_MS before its created_at (the page's bound). */
async function cursorEvent(q: Queryable, merchantId: number, id: number): Promise<{ tx_id: string; since: Date } | null> {
  const select = 'SELECT tx_id::text AS tx_id, created_at FROM events WHERE id = $1 AND merchant_id = $2';
  const recent = await q.query<{ tx_id: string; created_at: Date }>(`${select} AND created_at >= $3`, [id, merchantId, new Date(Date.now() - RECENT_CURSOR_MS)]);
  const row = recent.rows[0] ?? (await q.query<{ tx_id: string; created_at: Date }>(select, [id, merchantId])).rows[0];
  return row ? { tx_id: row.tx_id, since: new Date(new Date(row.created_at).getTime() - FEED_MARGIN_MS) } : null;
}
