#!/usr/bin/env bash
# The hot statements on the partitioned tables, a year of data against a fresh database
# (docs/performance.md, "Month partitions"): two scratch databases migrated by caja, the big one
# given 12 months of events, attempts and deposit status history with generate_series (SCALE × the
# volume of 5 M deposits a year: 13.6 M events, 5.1 M attempts, 17 M status changes), then pgbench
# runs of each statement, alternating small and big, RUNS times. Prints transactions a second and
# the big/small ratio per statement and run. The databases are dropped at the end. pgbench -M
# extended: every statement planned with its values, as caja's unnamed statements are (a time
# bound given as a value prunes the months at planning).
#
#   SCALE=0.1 RUNS=3 SECONDS_PER_RUN=10 bash bench/partitions-hot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
SCALE=${SCALE:-0.1}
RUNS=${RUNS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
SMALL=h43p_hot_small_$$
BIG=h43p_hot_big_$$
TMP=$(mktemp -d)
cleanup() {
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $SMALL" -c "DROP DATABASE IF EXISTS $BIG" >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT

for db in $SMALL $BIG; do
  psql "$PG/postgres" -qc "CREATE DATABASE $db"
  DATABASE_URL="$PG/$db" DATA_DIR="$TMP" CAJA_MASTER_KEY=$(openssl rand -base64 32) LOG_LEVEL=silent node bin/caja.mjs migrate >/dev/null
done

# A year: months -11..0 created (the function migration 091 left), rows spread over them.
psql "$PG/$BIG" -q >/dev/null <<SQL
SET session_replication_role = replica; -- no foreign-key checks while generating
SELECT caja_month_partition(t, date_trunc('month', now()) - m * interval '1 month')
FROM unnest(array['events', 'notification_attempts', 'deposit_status_changes']) t, generate_series(1, 11) m;
INSERT INTO events (merchant_id, type, subject_type, subject_id, data, created_at)
SELECT 1, 'deposit.status_changed', 'deposit', g, jsonb_build_object('id', g, 'status', 'COMPLETED', 'amount', '100.00'),
       now() - interval '360 days' + (g::float8 / (13600000 * $SCALE)) * interval '359 days'
FROM generate_series(1, (13600000 * $SCALE)::int) g;
INSERT INTO notification_attempts (notification_id, attempt_no, started_at, url, status_code, latency_ms, created_at)
SELECT g, 1, now() - interval '360 days' + (g::float8 / (5100000 * $SCALE)) * interval '359 days', 'https://merchant.example/hook', 200, 40,
       now() - interval '360 days' + (g::float8 / (5100000 * $SCALE)) * interval '359 days'
FROM generate_series(1, (5100000 * $SCALE)::int) g;
INSERT INTO deposit_status_changes (deposit_id, from_status, to_status, cause, actor, created_at)
SELECT g / 4 + 1, 'PENDING', 'COMPLETED', 'payment', 'provider',
       now() - interval '360 days' + (g::float8 / (17000000 * $SCALE)) * interval '359 days'
FROM generate_series(1, (17000000 * $SCALE)::int) g;
ANALYZE;
SQL
# The small database: a few hundred rows in this month.
psql "$PG/$SMALL" -q >/dev/null <<SQL
SET session_replication_role = replica;
INSERT INTO events (merchant_id, type, subject_type, subject_id, data) SELECT 1, 'deposit.status_changed', 'deposit', g, '{}' FROM generate_series(1, 400) g;
INSERT INTO notification_attempts (notification_id, attempt_no, started_at, url, status_code, latency_ms) SELECT g, 1, now(), 'https://merchant.example/hook', 200, 40 FROM generate_series(1, 150) g;
INSERT INTO deposit_status_changes (deposit_id, from_status, to_status, cause, actor, created_at) SELECT g / 4 + 1, 'PENDING', 'COMPLETED', 'payment', 'provider', now() FROM generate_series(1, 500) g;
ANALYZE;
SQL

# The statements of the hot paths (the deposit's history unbounded, and as src/deposits/store.ts
# statusHistory sends it,
# src/notifications/store.ts eventsAfter and its attempts, the creation's inserts), on this
# month's rows (what a live merchant asks about).
cat > "$TMP/history.sql" <<'SQL'
\set dep :maxd - random(1, 100)
SELECT id, from_status, to_status, cause, actor, note, created_at FROM deposit_status_changes WHERE deposit_id = :dep ORDER BY id;
SQL
# The same as caja reads it: bounded below by the deposit's month, its created_at given as a value
# (src/deposits/store.ts; here this month's start, month).
cat > "$TMP/history-bounded.sql" <<'SQL'
\set dep :maxd - random(1, 100)
SELECT id, from_status, to_status, cause, actor, note, created_at FROM deposit_status_changes WHERE deposit_id = :dep
  AND created_at >= date_trunc('month', :month::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' ORDER BY id;
SQL
# The feed page after a cursor unbounded (every month's partition probed) …
cat > "$TMP/feed-unbounded.sql" <<'SQL'
\set cur :maxe - 200 - random(1, 100)
SELECT id, type, subject_type, subject_id, data, created_at FROM events
WHERE merchant_id = 1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
  AND (tx_id, id) > (SELECT c.tx_id, c.id FROM events c WHERE c.id = :cur AND c.merchant_id = 1)
ORDER BY tx_id, id LIMIT 100;
SQL
# … and as caja sends it (src/notifications/store.ts eventsAfter): the cursor's event looked for
# in the last 7 days (every month only when it is older), then the page from a day before its
# created_at on, both bounds given as values.
cat > "$TMP/feed.sql" <<'SQL'
\set cur :maxe - 200 - random(1, 100)
SELECT tx_id::text AS c_tx, created_at - interval '1 day' AS c_since FROM events WHERE id = :cur AND merchant_id = 1 AND created_at >= :recent \gset
SELECT id, type, subject_type, subject_id, data, created_at FROM events
WHERE merchant_id = 1 AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
  AND (tx_id, id) > (:c_tx::xid8, :cur) AND created_at >= :c_since
ORDER BY tx_id, id LIMIT 100;
SQL
# A notification's attempts unbounded …
cat > "$TMP/attempts-unbounded.sql" <<'SQL'
\set n :maxn - random(1, 100)
SELECT notification_id, attempt_no, started_at, status_code FROM notification_attempts
WHERE notification_id = ANY(ARRAY[:n]::bigint[]) ORDER BY notification_id, id;
SQL
# … and as caja reads them: from a day before the notification's created_at on (here the newest
# notifications' oldest less a day, natt), given as a value.
cat > "$TMP/attempts.sql" <<'SQL'
\set n :maxn - random(1, 100)
SELECT notification_id, attempt_no, started_at, status_code FROM notification_attempts
WHERE notification_id = ANY(ARRAY[:n]::bigint[]) AND created_at >= :natt ORDER BY notification_id, id;
SQL
cat > "$TMP/write.sql" <<'SQL'
BEGIN;
SET LOCAL session_replication_role = replica;
INSERT INTO deposit_status_changes (deposit_id, from_status, to_status, cause, actor, created_at) VALUES (1, NULL, 'PENDING', 'created', 'merchant', now());
INSERT INTO events (merchant_id, type, subject_type, subject_id, data) VALUES (1, 'deposit.created', 'deposit', 1, '{}');
INSERT INTO notification_attempts (notification_id, attempt_no, started_at, url, status_code, latency_ms) VALUES (1, 1, now(), 'https://merchant.example/hook', 200, 40);
COMMIT;
SQL

# The newest ids of each database, where a live merchant's reads land.
newest() { psql "$PG/$1" -Atc "SELECT '-D maxd=' || (SELECT max(deposit_id) FROM deposit_status_changes) || ' -D maxe=' || (SELECT max(id) FROM events) || ' -D maxn=' || (SELECT max(notification_id) FROM notification_attempts) || ' -D month=' || to_char(date_trunc('month', now() AT TIME ZONE 'UTC'), 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || ' -D recent=' || to_char((now() - interval '7 days') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || ' -D natt=' || (SELECT to_char((min(created_at) - interval '1 day') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM notification_attempts WHERE notification_id > (SELECT max(notification_id) - 101 FROM notification_attempts))"; }
VARS_SMALL=$(newest $SMALL)
VARS_BIG=$(newest $BIG)
tps() {
  local vars=$VARS_SMALL
  [ "$2" = "$BIG" ] && vars=$VARS_BIG
  # shellcheck disable=SC2086
  pgbench -n -M extended -c 2 -j 2 -T "$SECONDS_PER_RUN" $vars -f "$TMP/$1.sql" "$PG/$2" 2>/dev/null | awk '/^tps/ {print $3; exit}'
}
for run in $(seq 1 "$RUNS"); do
  for s in ${STATEMENTS:-history history-bounded feed-unbounded feed attempts-unbounded attempts write}; do
    small=$(tps $s $SMALL)
    big=$(tps $s $BIG)
    echo "run $run $s small=$small big=$big ratio=$(awk -v a="$big" -v b="$small" 'BEGIN {printf "%.2f", a / b}')"
  done
done
