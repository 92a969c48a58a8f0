// JSON shapes of notifications, attempts and events, shared by the merchant (v3) and admin faces.
import type { AttemptRow, FeedEvent, NotificationRow } from './store.ts';

export const attemptSchema = {
  type: 'object',
  properties: {
    attempt: { type: 'integer' },
    started_at: { type: 'string', format: 'date-time' },
    url: { type: 'string' },
    status_code: { type: 'integer', nullable: true },
    latency_ms: { type: 'integer' },
    error: { type: 'string', nullable: true },
    response_excerpt: { type: 'string', nullable: true },
  },
} as const;

export const notificationSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    event_id: { type: 'integer' },
    event_type: { type: 'string' },
    merchant_id: { type: 'integer' },
    kind: { type: 'string' },
    subject_type: { type: 'string' },
    subject_id: { type: 'integer' },
    url: { type: 'string' },
    content_type: { type: 'string' },
    body: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempt_count: { type: 'integer' },
    next_attempt_at: { type: 'string', format: 'date-time', nullable: true },
    last_status_code: { type: 'integer', nullable: true },
    last_error: { type: 'string', nullable: true },
    created_at: { type: 'string', format: 'date-time' },
    resent_at: { type: 'string', format: 'date-time', nullable: true },
    finished_at: { type: 'string', format: 'date-time', nullable: true },
    attempts: { type: 'array', items: attemptSchema },
  },
} as const;

export const notificationListSchema = {
  type: 'object',
  properties: {
    notifications: { type: 'array', items: notificationSchema },
    /** Pass as `before` for the next (older) page; null at the end. */
    next_before: { type: 'string', nullable: true },
  },
} as const;

export const eventSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    type: { type: 'string' },
    subject_type: { type: 'string' },
    subject_id: { type: 'integer' },
    data: { type: 'object', additionalProperties: true },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

export const listQuerySchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    before: { type: 'string', pattern: '^[0-9]{1,18}$' },
  },
} as const;

export interface ListQuery {
  status?: 'pending' | 'delivered' | 'failed';
  limit: number;
  before?: string;
}

export function attemptView(a: AttemptRow) {
  return {
    attempt: a.attempt_no,
    started_at: a.started_at,
    url: a.url,
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    error: a.error,
    response_excerpt: a.response_excerpt,
  };
}

export function notificationView(n: NotificationRow & { attempts: AttemptRow[] }) {
  const [subjectType, subjectId] = n.subject_key.split(':');
  return {
    id: n.id,
    event_id: n.event_id,
    event_type: n.event_type,
    merchant_id: n.merchant_id,
    kind: n.kind,
    subject_type: subjectType,
    subject_id: Number(subjectId),
    url: n.url,
    content_type: n.content_type,
    body: n.body,
    status: n.status,
    attempt_count: n.attempt_count,
    next_attempt_at: n.status === 'pending' ? n.next_attempt_at : null,
    last_status_code: n.last_status_code,
    last_error: n.last_error,
    created_at: n.created_at,
    resent_at: n.resent_at,
    finished_at: n.finished_at,
    attempts: n.attempts.map(attemptView),
  };
}

export function notificationListView(rows: (NotificationRow & { attempts: AttemptRow[] })[], limit: number) {
  return {
    notifications: rows.map(notificationView),
    next_before: rows.length === limit ? String(rows[rows.length - 1].id) : null,
  };
}

export function eventView(e: FeedEvent) {
  return { id: e.id, type: e.type, subject_type: e.subject_type, subject_id: e.subject_id, data: e.data, created_at: e.created_at };
}
