// The one way features announce a change: an event row plus, per destination, an outbox row,
// written inside the caller's transaction so nothing is sent for a change that rolled back.
import type { Queryable } from '../db/db.ts';

export type SubjectType = 'deposit' | 'refund' | 'cashout';

export interface OutgoingNotification {
  /** e.g. 'v3.deposit', 'v3.refund', 'streamline.confirmation', 'cashout' */
  kind: string;
  url: string;
  contentType: 'application/json' | 'application/x-www-form-urlencoded';
  body: string;
  signingSet: 'deposits' | 'cashouts';
}

export interface NewEvent {
  merchantId: number;
  /** e.g. 'deposit.status_changed' */
  type: string;
  subjectType: SubjectType;
  subjectId: number;
  data: Record<string, unknown>;
  notifications?: OutgoingNotification[];
}

/** Chaos mode's odds and delays, as docs/notifications.md states them. */
export const CHAOS = { duplicate: 0.3, delayed: 0.5, delayMinSeconds: 1, delayMaxSeconds: 10 } as const;

export async function recordEvent(q: Queryable, e: NewEvent): Promise<number> {
  return (await recordEvents(q, [e]))[0]!;
}

// Staging's chaos mode (merchants.sandbox_chaos): one row per delivery, a second row (the same
// event delivered twice) with CHAOS.duplicate probability, each row held back by CHAOS.delay*
// seconds with CHAOS.delayed probability. The worker keeps one subject's notifications in order,
// so delays reorder notifications of different subjects.
// Events take their ids in the order given (ORDER BY n), so the k-th smallest id is the k-th
// event's: its notifications join it by that rank, and are inserted in the same order. Each
// carries its event's type (migration 098: reading a notification reads no month of events).
const EVENTS_SQL = `
WITH ev AS (
  SELECT * FROM unnest($1::integer[], $2::text[], $3::text[], $4::integer[], $5::text[]) WITH ORDINALITY AS v(merchant_id, type, subject_type, subject_id, data, n)
), e AS (
  INSERT INTO events (merchant_id, type, subject_type, subject_id, data)
  SELECT merchant_id, type, subject_type, subject_id, data::jsonb FROM ev ORDER BY n
  RETURNING id
), en AS (
  SELECT id, row_number() OVER (ORDER BY id) AS n FROM e
), nv AS (
  SELECT * FROM unnest($6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) WITH ORDINALITY AS v(ev, kind, url, content_type, body, signing_set, k)
), n AS (
  INSERT INTO notifications (event_id, event_type, merchant_id, subject_key, kind, url, content_type, body, signing_set, next_attempt_at)
  SELECT en.id, ev.type, ev.merchant_id, ev.subject_type || ':' || ev.subject_id, nv.kind, nv.url, nv.content_type, nv.body, nv.signing_set,
         now() + CASE WHEN m.sandbox_chaos AND random() < $12::float8 THEN make_interval(secs => $13::float8 + random() * ($14::float8 - $13::float8)) ELSE interval '0' END
  FROM nv JOIN en ON en.n = nv.ev JOIN ev ON ev.n = nv.ev JOIN merchants m ON m.id = ev.merchant_id
  CROSS JOIN LATERAL generate_series(1, CASE WHEN m.sandbox_chaos AND random() < $15::float8 THEN 2 ELSE 1 END) g
  ORDER BY nv.k, g
)
SELECT id FROM en ORDER BY n`;

/** Many events and their notifications in one statement (as recordEvent writes each): their ids, in order. */
export async function recordEvents(q: Queryable, events: NewEvent[]): Promise<number[]> {
  if (events.length === 0) return [];
  const notes = events.flatMap((e, k) => (e.notifications ?? []).map((n) => ({ ev: k + 1, n })));
  const { rows } = await q.query<{ id: number }>(
    EVENTS_SQL,
    [
      events.map((e) => e.merchantId), events.map((e) => e.type), events.map((e) => e.subjectType), events.map((e) => e.subjectId),
      events.map((e) => JSON.stringify(e.data)),
      notes.map((x) => x.ev), notes.map((x) => x.n.kind), notes.map((x) => x.n.url), notes.map((x) => x.n.contentType), notes.map((x) => x.n.body),
      notes.map((x) => x.n.signingSet),
      CHAOS.delayed, CHAOS.delayMinSeconds, CHAOS.delayMaxSeconds, CHAOS.duplicate,
    ],
    { name: 'caja_record_events' },
  );
  return rows.map((r) => r.id);
}
