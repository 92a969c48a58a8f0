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

export async function recordEvent(q: Queryable, e: NewEvent): Promise<number> {
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO events (merchant_id, type, subject_type, subject_id, data)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [e.merchantId, e.type, e.subjectType, e.subjectId, JSON.stringify(e.data)],
  );
  const eventId = rows[0].id;
  for (const n of e.notifications ?? []) {
    await q.query(
      `INSERT INTO notifications (event_id, merchant_id, subject_key, kind, url, content_type, body, signing_set)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [eventId, e.merchantId, `${e.subjectType}:${e.subjectId}`, n.kind, n.url, n.contentType, n.body, n.signingSet],
    );
  }
  return eventId;
}
