// The gauges of what can break money (docs/operations.md, Alerts), read from the database at
// scrape time, so every process reports the same figures and a restarted one loses nothing:
//   caja_connector_last_success_timestamp_seconds / _last_error_…  per connector
//   caja_connector_orders_in_flight, caja_connector_orders_oldest_seconds
//                                        cashout orders and refunds handed to a provider (sending,
//                                        sent) and not settled, per connector, kind and state
//   caja_cashouts_waiting, caja_cashouts_waiting_oldest_seconds
//                                        cashouts not yet paid (PENDING, DELIVERED) per country
//   caja_connector_payments_unmatched    provider payments that matched no deposit, per connector
//   caja_reconciliation_exceptions_open, _open_amount, _oldest_seconds
//                                        open statement exceptions per currency, their sum, the oldest's age
//   caja_exchange_rate_age_seconds       per currency: since the rate's source published it
// The rules that watch them are deploy/prometheus/caja-rules.yml (tested with promtool).
import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/db.ts';
import { waitingCashouts } from '../cashouts/list.ts';

/**
 * One scrape reads each query once, however many gauges it feeds: the registry collects every
 * gauge at once, so the gauges of one scrape share the query in flight; the next scrape reads anew.
 */
function perScrape<T>(read: () => Promise<T>): () => Promise<T | null> {
  let inFlight: Promise<T | null> | null = null;
  return () => {
    inFlight ??= read().catch(() => null).finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}

const seconds = (d: Date | null) => (d ? d.getTime() / 1000 : 0);

/**
 * A gauge whose series are the rows `read` answers at scrape time: one series a row (labels and
 * value from `series`), none when the read fails (a database away: the series go missing, and
 * the rules' absence checks say so).
 */
function rowsGauge<R, L extends string>(
  registry: Registry, name: string, help: string, labelNames: readonly L[],
  read: () => Promise<R[] | null>, series: (r: R) => [Record<L, string>, number] | null,
): void {
  new Gauge({
    name, help, labelNames, registers: [registry],
    async collect() {
      const rows = await read();
      if (!rows) return;
      this.reset();
      for (const r of rows) {
        const s = series(r);
        if (s) this.set(s[0], s[1]);
      }
    },
  });
}

export function registerMoneyGauges(registry: Registry, db: Db): void {
  const rowsOf = <R>(sql: string) => perScrape(async () => (await db.query<R>(sql)).rows);

  const connectors = rowsOf<{ name: string; enabled: boolean; success: Date | null; error: Date | null }>(
    `SELECT name, enabled, CASE WHEN last_poll_ok THEN last_poll_at END AS success, last_error_at AS error FROM connectors`,
  );
  rowsGauge(registry, 'caja_connector_last_success_timestamp_seconds',
    'When the connector last read its provider successfully (its catch-up poll), Unix seconds; 0 never', ['connector'], connectors,
    (r) => (r.enabled ? [{ connector: r.name }, seconds(r.success)] : null));
  rowsGauge(registry, 'caja_connector_last_error_timestamp_seconds',
    'When a call of the connector to its provider last failed, Unix seconds; 0 never', ['connector'], connectors,
    (r) => (r.enabled ? [{ connector: r.name }, seconds(r.error)] : null));

  const inFlight = rowsOf<{ connector: string; kind: string; state: string; n: number; oldest: number }>(
    `SELECT connector, 'cashout' AS kind, state, count(*)::int AS n, extract(epoch FROM now() - min(created_at))::float8 AS oldest
       FROM connector_payouts WHERE state IN ('sending', 'sent') GROUP BY connector, state
     UNION ALL
     SELECT connector, 'refund' AS kind, state, count(*)::int AS n, extract(epoch FROM now() - min(created_at))::float8 AS oldest
       FROM connector_refunds WHERE state IN ('sending', 'sent') GROUP BY connector, state`,
  );
  const orderLabels = ['connector', 'kind', 'state'] as const;
  rowsGauge(registry, 'caja_connector_orders_in_flight',
    'Cashout orders and refunds handed to a provider and not settled yet, by connector, kind (cashout, refund) and state (sending, sent)', orderLabels, inFlight,
    (r) => [{ connector: r.connector, kind: r.kind, state: r.state }, r.n]);
  rowsGauge(registry, 'caja_connector_orders_oldest_seconds',
    'Age of the oldest cashout order or refund in each connector, kind and state (absent when none)', orderLabels, inFlight,
    (r) => [{ connector: r.connector, kind: r.kind, state: r.state }, r.oldest]);

  const waiting = perScrape(() => waitingCashouts(db));
  rowsGauge(registry, 'caja_cashouts_waiting',
    'Cashouts not paid yet, by country and status (PENDING: not handed to a bank; DELIVERED: handed over, no outcome)', ['country', 'status'], waiting,
    (r) => [{ country: r.country, status: r.status }, r.count]);
  rowsGauge(registry, 'caja_cashouts_waiting_oldest_seconds',
    'Age of the oldest cashout not paid yet, by country and status (absent when none)', ['country', 'status'], waiting,
    (r) => [{ country: r.country, status: r.status }, r.oldestSeconds]);

  rowsGauge(registry, 'caja_connector_payments_unmatched',
    'Payments a provider received that matched no pending deposit, kept for the operator, by connector', ['connector'],
    rowsOf<{ connector: string; n: number }>(`SELECT connector, count(*)::int AS n FROM connector_payments WHERE status = 'unmatched' GROUP BY connector`),
    (r) => [{ connector: r.connector }, r.n]);

  const exceptions = rowsOf<{ currency: string; n: number; amount: string; oldest: number }>(
    `SELECT e.currency, count(*)::int AS n, sum(e.amount)::text AS amount, extract(epoch FROM now() - min(x.created_at))::float8 AS oldest
     FROM reconciliation_exceptions x JOIN bank_entries e ON e.id = x.entry_id WHERE x.status = 'open' GROUP BY e.currency`,
  );
  rowsGauge(registry, 'caja_reconciliation_exceptions_open',
    'Statement entries reconciliation could not match, open for the operator, by currency', ['currency'], exceptions,
    (r) => [{ currency: r.currency }, r.n]);
  rowsGauge(registry, 'caja_reconciliation_exceptions_open_amount',
    'The sum of the open reconciliation exceptions\' amounts, by currency (credits and debits alike)', ['currency'], exceptions,
    (r) => [{ currency: r.currency }, Number(r.amount)]);
  rowsGauge(registry, 'caja_reconciliation_exceptions_oldest_seconds',
    'Age of the oldest open reconciliation exception, by currency (absent when none)', ['currency'], exceptions,
    (r) => [{ currency: r.currency }, r.oldest]);

  rowsGauge(registry, 'caja_exchange_rate_age_seconds',
    'Age of each currency\'s USD rate, since its source published it (manual rates: since they were set)', ['currency', 'source'],
    rowsOf<{ currency: string; source: string; age: number }>(`SELECT currency, source, extract(epoch FROM now() - rate_at)::float8 AS age FROM exchange_rates`),
    (r) => [{ currency: r.currency, source: r.source }, r.age]);
}
