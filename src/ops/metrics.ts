// Prometheus metrics: HTTP requests and latency per route, notification delivery, and the
// outbox backlog (read from the database at scrape time, so every process reports the same).
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/db.ts';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status_code'>;
  httpLatency: Histogram<'method' | 'route'>;
  /** result: delivered or failed; notifications given up on show in the caja_notifications gauge. */
  notificationAttempts: Counter<'result'>;
  notificationLatency: Histogram;
  /** Deposits written by one statement (src/db/batcher.ts): how much group commit happens. */
  depositBatchSize: Histogram;
  /** Deposit creations queued for their insert statement, summed over `depositQueues` at scrape time. */
  depositBatchWaiting: Gauge;
  /** Where depositBatchWaiting reads (the creation batchers add themselves): nothing on the hot path. */
  depositQueues: (() => number)[];
  /** Payments a connector's provider received, each counted once, by how they were applied: applied, unmatched. */
  connectorPayments: Counter<'connector' | 'status'>;
  /** Payments read again that were already recorded (the poll's overlapping windows, a repeated webhook): not new payments. */
  connectorPaymentsSeenAgain: Counter<'connector' | 'via'>;
  /** Rows archived and deleted by retention (src/retention/), per table. */
  retentionArchived: Counter<'table'>;
  /** Seconds from a cashout's creation to its COMPLETED, per payout network (p50/p99 from the buckets). */
  payoutTimeToPaid: Histogram<'connector'>;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One registry per context, so that several servers in one test process do not collide. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const depositQueues: (() => number)[] = [];
  return {
    registry,
    httpRequests: new Counter({
      name: 'caja_http_requests_total',
      help: 'HTTP requests by route, method and status code',
      labelNames: ['method', 'route', 'status_code'],
      registers: [registry],
    }),
    httpLatency: new Histogram({
      name: 'caja_http_request_duration_seconds',
      help: 'HTTP request latency by route and method',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS.slice(0, -1),
      registers: [registry],
    }),
    notificationAttempts: new Counter({
      name: 'caja_notification_attempts_total',
      help: 'Notification delivery attempts by result: delivered or failed',
      labelNames: ['result'],
      registers: [registry],
    }),
    notificationLatency: new Histogram({
      name: 'caja_notification_delivery_seconds',
      help: 'Time from the start of a delivery attempt to the merchant endpoint answering',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    payoutTimeToPaid: new Histogram({
      name: 'caja_payout_time_to_paid_seconds',
      help: 'Time from a cashout\'s creation to COMPLETED, per payout network (regulated merchants must pay within 120 minutes)',
      labelNames: ['connector'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 86400],
      registers: [registry],
    }),
    depositBatchSize: new Histogram({
      name: 'caja_deposit_batch_size',
      help: 'Deposits created by one insert statement (concurrent creations share one)',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    }),
    depositBatchWaiting: new Gauge({
      name: 'caja_deposit_batch_waiting',
      help: 'Deposit creations waiting for an insert statement (they share the next one)',
      registers: [registry],
      collect() {
        this.set(depositQueues.reduce((n, waiting) => n + waiting(), 0));
      },
    }),
    depositQueues,
    connectorPayments: new Counter({
      name: 'caja_connector_payments_total',
      help: 'Payments a connector\'s provider received, each counted once: applied (completed a deposit), unmatched (kept for the operator)',
      labelNames: ['connector', 'status'],
      registers: [registry],
    }),
    connectorPaymentsSeenAgain: new Counter({
      name: 'caja_connector_payments_seen_again_total',
      help: 'Payments read again that were already recorded (overlapping poll windows, repeated webhooks), by how they were read',
      labelNames: ['connector', 'via'],
      registers: [registry],
    }),
    retentionArchived: new Counter({
      name: 'caja_retention_archived_rows_total',
      help: 'Rows written to the archive and deleted by retention, per table',
      labelNames: ['table'],
      registers: [registry],
    }),
  };
}

function registerOutboxGauges(metrics: Metrics, db: Db): void {
  type Backlog = { pending: number; failed: number; oldest: number };
  let last: Promise<Backlog> | null = null;
  let lastAt = 0;
  // Both gauges are collected in the same scrape: they share one query.
  const read = (): Promise<Backlog> => {
    if (last && Date.now() - lastAt < 100) return last;
    lastAt = Date.now();
    last = query();
    return last;
  };
  const query = async (): Promise<Backlog> => {
    const { rows } = await db.query<{ pending: number; failed: number; oldest: number | null }>(
      // Pending rows through their partial index (the backlog, not the table); failed ones from
      // the count a trigger keeps (migration 025): a scrape costs the same at any outbox size.
      `SELECT count(*)::int AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest,
              (SELECT n FROM outbox_counts WHERE status = 'failed')::int AS failed
       FROM notifications WHERE status = 'pending'`,
    );
    return { pending: rows[0].pending, failed: rows[0].failed, oldest: rows[0].oldest ?? 0 };
  };
  new Gauge({
    name: 'caja_notifications',
    help: 'Notifications in the outbox by status (pending: not delivered yet; failed: gave up)',
    labelNames: ['status'],
    registers: [metrics.registry],
    async collect() {
      const v = await read().catch(() => null);
      if (!v) return;
      this.set({ status: 'pending' }, v.pending);
      this.set({ status: 'failed' }, v.failed);
    },
  });
  new Gauge({
    name: 'caja_notifications_oldest_pending_seconds',
    help: 'Age of the oldest undelivered notification (0 when none)',
    registers: [metrics.registry],
    async collect() {
      const v = await read().catch(() => null);
      if (v) this.set(v.oldest);
    },
  });
}

/**
 * Orders, refunds and send-backs of refused payments stopped because what the provider holds under
 * their reference is not theirs, or (a send-back) the provider refused it (src/cashouts/payouts.ts,
 * src/refunds/provider-refunds.ts, src/deposits/send-backs.ts): never completed nor sent again until the operator settles them.
 * Anything above 0 needs a person.
 */
function registerStoppedGauge(metrics: Metrics, db: Db): void {
  new Gauge({
    name: 'caja_connector_orders_stopped',
    help: 'Cashout orders, refunds and send-backs of refused payments stopped: the provider holds something else under their reference (an operator must settle them)',
    labelNames: ['connector', 'kind'],
    registers: [metrics.registry],
    async collect() {
      const rows = await db.query<{ connector: string; kind: string; n: number }>(
        `SELECT connector, 'cashout' AS kind, count(*)::int AS n FROM connector_payouts WHERE state = 'stopped' GROUP BY connector
         UNION ALL SELECT connector, 'refund' AS kind, count(*)::int AS n FROM connector_refunds WHERE state = 'stopped' GROUP BY connector
         UNION ALL SELECT connector, 'send_back' AS kind, count(*)::int AS n FROM connector_send_backs WHERE state = 'stopped' GROUP BY connector`,
      ).then((r) => r.rows).catch(() => null);
      if (!rows) return;
      this.reset();
      for (const r of rows) this.set({ connector: r.connector, kind: r.kind }, r.n);
    },
  });
}

/**
 * Provider payments not applied: the oldest a connector knows of that credited nothing (kept
 * 'unmatched' for the operator), and how far behind each connector's catch-up poll is (a payment
 * whose post was lost after its last complete window is not known yet). docs/operations.md.
 */
function registerUnappliedGauges(metrics: Metrics, db: Db): void {
  new Gauge({
    name: 'caja_connector_payment_unapplied_oldest_seconds',
    help: 'Age of the oldest provider payment a connector knows of that credited nothing (unmatched, for the operator); 0 when none',
    labelNames: ['connector'],
    registers: [metrics.registry],
    async collect() {
      const rows = await db.query<{ name: string; oldest: number | null }>(
        `SELECT c.name, (SELECT extract(epoch FROM now() - min(p.created_at))::float8 FROM connector_payments p WHERE p.connector = c.name AND p.status = 'unmatched') AS oldest
         FROM connectors c`,
      ).then((r) => r.rows).catch(() => null);
      if (!rows) return;
      this.reset();
      for (const r of rows) this.set({ connector: r.name }, r.oldest ?? 0);
    },
  });
  new Gauge({
    name: 'caja_connector_poll_lag_seconds',
    help: 'Seconds since the end of the last window a connector\'s catch-up poll read completely (a payment whose post was lost since then is not known yet)',
    labelNames: ['connector'],
    registers: [metrics.registry],
    async collect() {
      const rows = await db.query<{ name: string; lag: number | null }>(
        `SELECT name, extract(epoch FROM now() - poll_until)::float8 AS lag FROM connectors WHERE enabled`,
      ).then((r) => r.rows).catch(() => null);
      if (!rows) return;
      this.reset();
      for (const r of rows) if (r.lag !== null) this.set({ connector: r.name }, r.lag);
    },
  });
}

/** The failover hold's counts (src/db/db.ts), read at scrape time: none on the embedded database. */
function registerHoldCounters(metrics: Metrics, db: Db): void {
  const stats = db.holdStats;
  new Counter({
    name: 'caja_db_hold_total',
    help: 'The failover hold: operations held (waited for a primary), in doubt (lost at COMMIT), found committed, run again, refused (hold queue full)',
    labelNames: ['outcome'],
    registers: [metrics.registry],
    collect() {
      this.reset();
      if (!stats) return;
      this.inc({ outcome: 'held' }, stats.held);
      this.inc({ outcome: 'in_doubt' }, stats.inDoubt);
      this.inc({ outcome: 'in_doubt_committed' }, stats.inDoubtCommitted);
      this.inc({ outcome: 'rerun' }, stats.rerun);
      this.inc({ outcome: 'refused' }, stats.refused);
    },
  });
  new Counter({
    name: 'caja_db_unavailable_total',
    help: 'Database-unavailable failures let through to their caller (a request answers 503), by reason; "expired: …" when the failover hold ran out',
    labelNames: ['reason'],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const [reason, n] of Object.entries(stats?.surfaced ?? {})) this.inc({ reason }, n);
    },
  });
}

export function registerMetrics(app: FastifyInstance, metrics: Metrics, db: Db): void {
  registerOutboxGauges(metrics, db);
  registerHoldCounters(metrics, db);
  registerStoppedGauge(metrics, db);
  registerUnappliedGauges(metrics, db);
  app.addHook('onResponse', async (request, reply) => {
    // Unmatched paths share one label so that scanners cannot blow up the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status_code: String(reply.statusCode) });
    metrics.httpLatency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
