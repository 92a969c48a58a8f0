#!/usr/bin/env bash
# Backups and a restore to a point in time, on the cluster of scripts/ha/start.sh:
#   1. a base backup of the primary (pg_basebackup, as the replication user);
#   2. a point in time T between two marked writes (and whatever caja wrote meanwhile);
#   3. the WAL archive (archive_command of every node, $HA_DIR/wal-archive) holds the WAL past T;
#   4. the base backup restored into a new data directory and replayed from the archive up to T
#      (recovery_target_time), on its own port, then promoted;
#   5. checked: the write before T is there, the one after T is not, caja's deposits are those
#      committed by T, and caja's ledger check passes on the restored database.
# Usage: scripts/ha/pitr.sh   (prints each step; exit 1 when a check fails)
set -euo pipefail
source "$(dirname "$0")/env.sh"
psql_at() { as_postgres "$PG_BIN/psql" -h 127.0.0.1 -p "$1" -U postgres -d "$2" -qAtX -v ON_ERROR_STOP=1 -c "$3"; }

primary="$(primary_node)" || { echo "no primary: is the cluster up?" >&2; exit 1; }
pport="${PG_PORTS[$(node_index "$primary")]}"
backup="$HA_DIR/backup/base-$(date -u +%Y%m%dT%H%M%SZ)"
restore="$HA_DIR/pitr"
as_postgres mkdir -p "$HA_DIR/backup"

echo "1. base backup of $primary into $backup"
as_postgres "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$pport" -U replicator -D "$backup" -X stream -c fast --no-sync
as_postgres "$PG_BIN/pg_verifybackup" -q -n "$backup" && echo "   verified (backup_manifest)"

echo "2. writes on either side of the point in time"
psql_at "$PG_WRITE_PORT" postgres "SELECT 1 FROM pg_database WHERE datname = 'pitr_probe'" | grep -q 1 || psql_at "$PG_WRITE_PORT" postgres "CREATE DATABASE pitr_probe"
psql_at "$PG_WRITE_PORT" pitr_probe "CREATE TABLE IF NOT EXISTS marks (note text PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp())"
before="before-$(date +%s%N)" after="after-$(date +%s%N)"
psql_at "$PG_WRITE_PORT" pitr_probe "INSERT INTO marks (note) VALUES ('$before')"
sleep 1
target="$(psql_at "$PG_WRITE_PORT" postgres "SELECT clock_timestamp()")"
deposits_at_target="$(psql_at "$PG_WRITE_PORT" caja "SELECT count(*) FROM deposits WHERE created_at <= '$target'" 2>/dev/null || echo '')"
sleep 1
psql_at "$PG_WRITE_PORT" pitr_probe "INSERT INTO marks (note) VALUES ('$after')"
echo "   T = $target ('$before' before it, '$after' after it; deposits created by T: ${deposits_at_target:-n/a})"

echo "3. the WAL past T into the archive"
wal="$(psql_at "$PG_WRITE_PORT" postgres "SELECT pg_walfile_name(pg_switch_wal())")"
for _ in $(seq 1 60); do
  [ -f "$HA_DIR/wal-archive/$wal" ] && break
  sleep 0.5
done
[ -f "$HA_DIR/wal-archive/$wal" ] || { echo "   $wal never reached the archive" >&2; exit 1; }
echo "   $wal archived ($(ls "$HA_DIR/wal-archive" | grep -c '^[0-9A-F]\{24\}$') segments in the archive)"

# The configured port, unless something holds it now: under load an outgoing connection may have
# taken it as its ephemeral local port (43xxx is inside Linux's ephemeral range); then any free one.
free_port() { node -e "const s=require('net').createServer();s.once('error',()=>process.exit(1));s.listen(+process.argv[1],'127.0.0.1',()=>{console.log(s.address().port);s.close()})" "$1"; }
PITR_PORT="$(free_port "$PITR_PORT" || free_port 0)"
echo "4. restore to T on port $PITR_PORT"
[ -f "$restore/data/postmaster.pid" ] && as_postgres "$PG_BIN/pg_ctl" -D "$restore/data" stop -m fast >/dev/null
rm -rf "$restore"
as_postgres mkdir -p "$restore"
as_postgres cp -a "$backup" "$restore/data"
chmod 700 "$restore/data"
# The backup carries the primary's settings as Patroni wrote them: this server is alone (no
# synchronous standby to wait for, no archiving into the cluster's archive) on its own port.
as_postgres tee -a "$restore/data/postgresql.conf" >/dev/null <<EOF

# --- point-in-time restore (scripts/ha/pitr.sh) ---
port = $PITR_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$restore'
synchronous_standby_names = ''
archive_mode = off
hot_standby = on
restore_command = 'cp $HA_DIR/wal-archive/%f %p'
recovery_target_time = '$target'
recovery_target_action = 'promote'
EOF
as_postgres rm -f "$restore/data/standby.signal" "$restore/data/postmaster.pid"
as_postgres touch "$restore/data/recovery.signal"
if ! as_postgres "$PG_BIN/pg_ctl" -D "$restore/data" -l "$restore/postgres.log" -w -t 120 start >/dev/null; then
  echo "   the restored server did not start; the end of its log:" >&2
  tail -n 30 "$restore/postgres.log" | sed 's/^/     /' >&2
  exit 1
fi
for _ in $(seq 1 240); do
  [ "$(psql_at "$PITR_PORT" postgres "SELECT pg_is_in_recovery()" 2>/dev/null)" = f ] && break
  sleep 0.5
done
[ "$(psql_at "$PITR_PORT" postgres "SELECT pg_is_in_recovery()")" = f ] || { echo "   recovery did not finish" >&2; exit 1; }
grep -E "recovery stopping|last completed transaction|selected new timeline" "$restore/postgres.log" | sed 's/^/   log: /' || true

echo "5. checks on the restored database"
fail=0
[ "$(psql_at "$PITR_PORT" pitr_probe "SELECT count(*) FROM marks WHERE note = '$before'")" = 1 ] && echo "   ok: '$before' is there" || { echo "   FAIL: '$before' is missing"; fail=1; }
[ "$(psql_at "$PITR_PORT" pitr_probe "SELECT count(*) FROM marks WHERE note = '$after'")" = 0 ] && echo "   ok: '$after' is not" || { echo "   FAIL: '$after' was restored"; fail=1; }
if [ -n "$deposits_at_target" ]; then
  restored="$(psql_at "$PITR_PORT" caja "SELECT count(*) FROM deposits")"
  [ "$restored" = "$deposits_at_target" ] && echo "   ok: caja's deposits as of T ($restored)" || { echo "   FAIL: $restored deposits restored, $deposits_at_target created by T"; fail=1; }
  if DATABASE_URL="postgres://postgres@127.0.0.1:$PITR_PORT/caja" CAJA_MASTER_KEY="$(cat "$HA_DIR/master.key" 2>/dev/null || head -c 32 /dev/urandom | base64)" DATA_DIR="$restore/caja" \
    node "$REPO/bin/caja.mjs" ledger check >"$restore/ledger-check.txt" 2>&1; then
    echo "   ok: caja ledger check on the restored database"
  else
    echo "   FAIL: caja ledger check:"; sed 's/^/     /' "$restore/ledger-check.txt"; fail=1
  fi
fi
as_postgres "$PG_BIN/pg_ctl" -D "$restore/data" stop -m fast >/dev/null
exit "$fail"
