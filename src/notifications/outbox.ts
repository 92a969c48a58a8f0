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
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO events (merchant_id, type, subject_type, subject_id, data)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [e.merchantId, e.type, e.subjectType, e.subjectId, JSON.stringify(e.data)],
  );
  const eventId = rows[0].id;
  for (const n of e.notifications ?? []) {
    // Staging's chaos mode (merchants.sandbox_chaos): one row per delivery, a second row (the
    // same event delivered twice) with CHAOS.duplicate probability, each row held back by
    // CHAOS.delay* seconds with CHAOS.delayed probability. The worker keeps one subject's
    // notifications in order, so delays reorder notifications of different subjects.
    await q.query(
      `INSERT INTO notifications (event_id, merchant_id, subject_key, kind, url, content_type, body, signing_set, next_attempt_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8,
              now() + CASE WHEN m.sandbox_chaos AND random() < $9::float8 THEN make_interval(secs => $10::float8 + random() * ($11::float8 - $10::float8)) ELSE interval '0' END
       FROM merchants m CROSS JOIN generate_series(1, CASE WHEN m.sandbox_chaos AND random() < $12::float8 THEN 2 ELSE 1 END)
       WHERE m.id = $2`,
      [eventId, e.merchantId, `${e.subjectType}:${e.subjectId}`, n.kind, n.url, n.contentType, n.body, n.signingSet, CHAOS.delayed, CHAOS.delayMinSeconds, CHAOS.delayMaxSeconds, CHAOS.duplicate],
    );
  }
  return eventId;
}
