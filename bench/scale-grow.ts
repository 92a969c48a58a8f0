// Grows a caja database to N deposits fast, with set-based SQL that copies the rows the service
// itself wrote for a handful of template lifecycles (bench/scale.ts makes them through the API):
// a completed deposit, an expired one, a completed one with a completed refund, a completed one
// whose merchant then cashed out, a HOSTED one that expired, a pending one. Each new deposit is one
// of them, moved to its own merchant, ids and time: its history, events, notifications (delivered,
// with their attempt), refunds, cashouts, ledger transfers and entries are copied with every
// reference renumbered, so every row has the shape the service writes and the ledger check passes.
//
// Ids are handed out in ranges reserved from each table's sequence, one range per chunk; the
// server must be stopped while it runs. Triggers and foreign keys are off for the growing session
// (session_replication_role = replica), so the account balances the entry trigger would move are
// added once per chunk, and the panel home's day figures are rebuilt at the end.
import pg from 'pg';

export interface Templates {
  /** The merchant whose deposits are the templates. */
  merchantId: number;
  /** The other merchants the copies go to, with the template merchant first. */
  merchants: number[];
  completed: number;
  expired: number;
  refunded: number;
  cashedOut: number;
  hostedExpired: number;
  pending: number;
}

/** Tables a lifecycle writes, in the order they are copied (referenced ones first). */
const TABLES = [
  'deposits', 'deposit_status_changes', 'refunds', 'refund_status_changes', 'cashouts', 'cashout_status_changes',
  'events', 'notifications', 'notification_attempts', 'ledger_transfers', 'ledger_entries',
] as const;
type Table = (typeof TABLES)[number];

/** Share of each template in 100 deposits: 70 % completed (5 of them refunded, 8 cashed out). */
const MIX: [keyof Omit<Templates, 'merchantId' | 'merchants'>, number][] = [
  ['completed', 57], ['refunded', 5], ['cashedOut', 8], ['expired', 22], ['hostedExpired', 8],
];

const DAYS = 90;

async function columns(c: pg.Client, table: string): Promise<string[]> {
  const { rows } = await c.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_name = $1 AND table_schema = current_schema() AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => r.column_name);
}

/** The SQL expression of a copied column; `o` is the template row, `s` the slot, `tr` its rank. */
function expression(table: Table, col: string, timestamps: Set<string>): string | null {
  const map = (t: Table, expr: string) => `(SELECT b.base + s.s * b.k + m.r FROM grow_base b, grow_rows m WHERE b.tbl = '${t}' AND m.tbl = '${t}' AND m.tpl = s.tpl AND m.old_id = ${expr})`;
  const subject = (type: string, id: string) =>
    `CASE ${type} WHEN 'deposit' THEN s.dep WHEN 'refund' THEN ${map('refunds', id)} WHEN 'cashout' THEN ${map('cashouts', id)} ELSE ${id} END`;
  if (col === 'id') return table === 'deposits' ? 's.dep' : `b.base + s.s * b.k + tr.r`;
  if (col === 'tx_id') return null;
  if (col === 'merchant_id') return table === 'ledger_transfers' ? 'CASE WHEN o.merchant_id IS NULL THEN NULL ELSE s.merchant END' : 's.merchant';
  switch (`${table}.${col}`) {
    case 'deposits.invoice_id': return `'g-' || s.dep`;
    case 'deposits.token': return `md5('grow-' || s.dep) || md5('token-' || s.dep)`;
    case 'deposits.user_id': return `'u-' || s.merchant || '-' || (s.dep % 40000)`;
    case 'deposits.payer_email': return `'payer' || (s.dep % 200000) || '@example.com'`;
    case 'deposits.payer_document': return `CASE WHEN o.payer_document IS NULL THEN NULL ELSE lpad((s.dep % 200000)::text, 11, '7') END`;
    case 'deposits.connector_reference': return `CASE WHEN o.connector_reference IS NULL THEN NULL ELSE o.connector_reference || '-g' || s.dep END`;
    case 'notifications.finished_at': return 'coalesce(o.finished_at, o.created_at) + s.shift';
    case 'deposits.payer': return `o.payer || jsonb_build_object('email', 'payer' || (s.dep % 200000) || '@example.com')`;
    case 'deposit_status_changes.deposit_id':
    case 'refunds.deposit_id': return 's.dep';
    case 'refund_status_changes.refund_id': return map('refunds', 'o.refund_id');
    case 'cashouts.external_id': return `'g-' || (b.base + s.s * b.k + tr.r)`;
    case 'cashout_status_changes.cashout_id': return map('cashouts', 'o.cashout_id');
    case 'events.subject_id':
    case 'ledger_transfers.subject_id': return subject('o.subject_type', 'o.subject_id');
    case 'notifications.event_id': return map('events', 'o.event_id');
    case 'notifications.subject_key': return `split_part(o.subject_key, ':', 1) || ':' || ${subject(`split_part(o.subject_key, ':', 1)`, `split_part(o.subject_key, ':', 2)::bigint`)}`;
    // Old notifications were delivered long ago.
    case 'notifications.status': return `'delivered'`;
    case 'notifications.lease_until':
    case 'notifications.lease_token': return 'NULL';
    case 'notifications.attempt_count': return 'greatest(o.attempt_count, 1)';
    case 'notification_attempts.notification_id': return map('notifications', 'o.notification_id');
    case 'ledger_transfers.resolves': return `CASE WHEN o.resolves IS NULL THEN NULL ELSE ${map('ledger_transfers', 'o.resolves')} END`;
    case 'ledger_entries.transfer_id': return map('ledger_transfers', 'o.transfer_id');
    case 'ledger_entries.account_id': return `(SELECT a.to_id FROM grow_accounts a WHERE a.from_id = o.account_id AND a.merchant = s.merchant)`;
    default: return timestamps.has(col) ? `o.${col} + s.shift` : `o.${col}`;
  }
}

/** Which template rows of `table` belong to each template deposit (temp table grow_rows). */
const MEMBERS: Record<Table, string> = {
  deposits: `SELECT t.tpl, d.id FROM deposits d JOIN grow_tpl t ON t.tpl = d.id`,
  deposit_status_changes: `SELECT t.tpl, x.id FROM deposit_status_changes x JOIN grow_tpl t ON t.tpl = x.deposit_id`,
  refunds: `SELECT t.tpl, x.id FROM refunds x JOIN grow_tpl t ON t.tpl = x.deposit_id`,
  refund_status_changes: `SELECT m.tpl, x.id FROM refund_status_changes x JOIN grow_rows m ON m.tbl = 'refunds' AND m.old_id = x.refund_id`,
  cashouts: `SELECT t.tpl, x.id FROM cashouts x JOIN grow_tpl t ON t.cashout = x.id`,
  cashout_status_changes: `SELECT m.tpl, x.id FROM cashout_status_changes x JOIN grow_rows m ON m.tbl = 'cashouts' AND m.old_id = x.cashout_id`,
  events: `SELECT t.tpl, x.id FROM events x JOIN grow_tpl t ON x.subject_type = 'deposit' AND x.subject_id = t.tpl
           UNION ALL SELECT m.tpl, x.id FROM events x JOIN grow_rows m ON m.tbl = x.subject_type || 's' AND m.old_id = x.subject_id AND x.subject_type <> 'deposit'`,
  notifications: `SELECT m.tpl, x.id FROM notifications x JOIN grow_rows m ON m.tbl = 'events' AND m.old_id = x.event_id`,
  notification_attempts: `SELECT m.tpl, x.id FROM notification_attempts x JOIN grow_rows m ON m.tbl = 'notifications' AND m.old_id = x.notification_id`,
  ledger_transfers: `SELECT t.tpl, x.id FROM ledger_transfers x JOIN grow_tpl t ON x.subject_type = 'deposit' AND x.subject_id = t.tpl
           UNION ALL SELECT m.tpl, x.id FROM ledger_transfers x JOIN grow_rows m ON m.tbl = x.subject_type || 's' AND m.old_id = x.subject_id AND x.subject_type <> 'deposit'`,
  ledger_entries: `SELECT m.tpl, x.id FROM ledger_entries x JOIN grow_rows m ON m.tbl = 'ledger_transfers' AND m.old_id = x.transfer_id`,
};

/**
 * Adds `n` deposits over the last 90 days to the merchants of `t` (the first one gets the largest
 * share), in chunks of `chunk` deposits, one transaction each. `log` reports progress. A chunk's
 * transaction holds back every event feed on the same PostgreSQL (the feed serves only events of
 * transactions older than every running one): 10,000 keeps it to seconds on a loaded machine.
 */
export async function grow(url: string, t: Templates, n: number, log: (s: string) => void, chunk = 10_000): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`SET session_replication_role = replica; SET synchronous_commit = off; SET work_mem = '64MB'`);
    // The template of each share; cashouts belong to the cashed-out template.
    const cashout = (await c.query<{ id: number }>(`SELECT max(id) AS id FROM cashouts WHERE merchant_id = $1`, [t.merchantId])).rows[0]!.id;
    await c.query(`CREATE TEMP TABLE grow_tpl (tpl integer PRIMARY KEY, name text, lo integer, hi integer, cashout integer)`);
    let lo = 0;
    for (const [name, share] of MIX) {
      await c.query(`INSERT INTO grow_tpl VALUES ($1, $2, $3, $4, $5)`, [t[name], name, lo, lo + share, name === 'cashedOut' ? cashout : null]);
      lo += share;
    }
    await c.query(`INSERT INTO grow_tpl VALUES ($1, 'pending', -1, -1, NULL)`, [t.pending]);
    await c.query(`CREATE TEMP TABLE grow_rows (tbl text, tpl integer, old_id bigint, r integer, PRIMARY KEY (tbl, tpl, old_id))`);
    for (const table of TABLES) {
      await c.query(
        `INSERT INTO grow_rows SELECT '${table}', tpl, id, (row_number() OVER (PARTITION BY tpl ORDER BY id) - 1)::int FROM (${MEMBERS[table]}) x(tpl, id)`,
      );
    }
    // Each merchant's copy of the template merchant's accounts (created when missing).
    await c.query(
      `INSERT INTO ledger_accounts (merchant_key, currency, kind)
       SELECT m, a.currency, a.kind FROM ledger_accounts a, unnest($1::int[]) m WHERE a.merchant_key = $2
       ON CONFLICT DO NOTHING`,
      [t.merchants, t.merchantId],
    );
    await c.query(
      `CREATE TEMP TABLE grow_accounts AS
       SELECT a.id AS from_id, m AS merchant, coalesce(b.id, a.id) AS to_id
       FROM ledger_accounts a CROSS JOIN unnest($1::int[]) m
       LEFT JOIN ledger_accounts b ON a.merchant_key <> 0 AND b.merchant_key = m AND b.currency = a.currency AND b.kind = a.kind
       WHERE a.merchant_key IN (0, $2)`,
      [t.merchants, t.merchantId],
    );
    await c.query(`CREATE INDEX ON grow_accounts (from_id, merchant)`);
    // Merchant shares: weight 1/(i+1)^0.8, the first merchant ~ 22 % of 20.
    await c.query(
      `CREATE TEMP TABLE grow_merchants AS
       SELECT m AS merchant, sum(w) OVER (ORDER BY i) / sum(w) OVER () AS upto
       FROM (SELECT m, i, 1 / power(i, 0.8) AS w FROM unnest($1::int[]) WITH ORDINALITY u(m, i)) x`,
      [t.merchants],
    );
    await c.query(`CREATE TEMP TABLE grow_base (tbl text PRIMARY KEY, base bigint, k integer)`);
    await c.query(`CREATE TEMP TABLE grow_slot (s integer PRIMARY KEY, dep integer, merchant integer, tpl integer, shift interval)`);
    const cols = new Map<Table, string[]>();
    const stamps = new Map<Table, Set<string>>();
    for (const table of TABLES) {
      cols.set(table, await columns(c, table));
      const { rows } = await c.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema() AND data_type = 'timestamp with time zone'`,
        [table],
      );
      stamps.set(table, new Set(rows.map((r) => r.column_name)));
    }
    // The months the copies' times fall in get their partitions first (migration 091's
    // caja_month_partition, what the partition worker calls), so no row lands in a DEFAULT partition.
    const { rows: months } = await c.query<{ parent: string; month: string }>(
      `SELECT c.relname AS parent, to_char(m, 'YYYY-MM-DD') AS month
       FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid AND c.relnamespace = current_schema()::regnamespace
       CROSS JOIN generate_series(date_trunc('month', (now() - interval '${DAYS + 1} days') AT TIME ZONE 'UTC'),
                                  date_trunc('month', now() AT TIME ZONE 'UTC'), interval '1 month') m
       WHERE c.relname = ANY($1)`,
      [[...TABLES]],
    );
    for (const m of months) await c.query(`SELECT caja_month_partition($1, $2::timestamp AT TIME ZONE 'UTC')`, [m.parent, m.month]);
    const k = new Map((await c.query<{ tbl: Table; k: number }>(`SELECT tbl, max(r) + 1 AS k FROM grow_rows GROUP BY tbl`)).rows.map((r) => [r.tbl, r.k]));
    const started = Date.now();
    for (let from = 0; from < n; from += chunk) {
      const size = Math.min(chunk, n - from);
      await c.query('BEGIN');
      await c.query('TRUNCATE grow_base, grow_slot');
      for (const table of TABLES) {
        const per = k.get(table) ?? 0;
        if (per === 0) continue;
        // Reserve size * per ids: the next value is the base, the sequence moves past the range.
        await c.query(
          `WITH b AS (SELECT nextval(pg_get_serial_sequence($1, 'id')) AS base)
           INSERT INTO grow_base SELECT $1, base, $2 FROM b, LATERAL (SELECT setval(pg_get_serial_sequence($1, 'id'), base + $3::bigint * $2 - 1)) x`,
          [table, per, size],
        );
      }
      // Slots: deposit ids follow time; the last two hours' deposits are still pending.
      await c.query(
        `INSERT INTO grow_slot
         SELECT g - $1, b.base + (g - $1), (SELECT gm.merchant FROM grow_merchants gm WHERE gm.upto >= h.u ORDER BY gm.upto LIMIT 1),
                CASE WHEN at > now() - interval '2 hours' THEN (SELECT tpl FROM grow_tpl WHERE name = 'pending')
                     ELSE (SELECT tpl FROM grow_tpl WHERE (g * 7919) % 100 >= lo AND (g * 7919) % 100 < hi) END,
                NULL
         FROM generate_series($1::bigint, $1::bigint + $2 - 1) g
         CROSS JOIN grow_base b
         CROSS JOIN LATERAL (SELECT now() - interval '${DAYS} days' + (g::float8 / $3) * interval '${DAYS} days' AS at,
                                    ((hashint8(g) & 1048575)::float8 / 1048575) AS u) h
         WHERE b.tbl = 'deposits'`,
        [from, size, n],
      );
      await c.query(
        `UPDATE grow_slot s SET shift = (now() - interval '${DAYS} days' + ((s.s + $1)::float8 / $2) * interval '${DAYS} days') - d.created_at
         FROM deposits d WHERE d.id = s.tpl`,
        [from, n],
      );
      for (const table of TABLES) {
        if (!k.get(table)) continue;
        const list = cols.get(table)!.map((col) => [col, expression(table, col, stamps.get(table)!)] as const).filter(([, e]) => e !== null);
        await c.query(
          `INSERT INTO ${table} (${list.map(([col]) => col).join(', ')})
           SELECT ${list.map(([, e]) => e).join(', ')}
           FROM grow_slot s JOIN grow_rows tr ON tr.tbl = '${table}' AND tr.tpl = s.tpl
           JOIN ${table} o ON o.id = tr.old_id JOIN grow_base b ON b.tbl = '${table}'`,
        );
      }
      // What the entry trigger would have added to each balance.
      await c.query(
        `UPDATE ledger_accounts a SET balance = a.balance + x.total
         FROM (SELECT e.account_id, sum(e.amount) AS total FROM ledger_entries e, grow_base b
               WHERE b.tbl = 'ledger_entries' AND e.id >= b.base AND e.id < b.base + $1::bigint * b.k GROUP BY 1) x
         WHERE a.id = x.account_id`,
        [size],
      );
      await c.query('COMMIT');
      const done = from + size;
      log(`grown ${done} / ${n} deposits (${Math.round(done / ((Date.now() - started) / 1000))}/s)`);
    }
    // The triggers that keep the panel home's figures were off: count them from the rows.
    await c.query('SELECT panel_day_figures_rebuild()');
  } finally {
    await c.end();
  }
}
