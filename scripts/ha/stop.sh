#!/usr/bin/env bash
# Stops everything scripts/ha/start.sh started (by the pid files it wrote) and deletes $HA_DIR.
set -uo pipefail
source "$(dirname "$0")/env.sh"
[ -d "$HA_DIR/run" ] || { rm -rf "$HA_DIR"; exit 0; }

stop() {
  local f="$HA_DIR/run/$1.pid" pid
  [ -f "$f" ] || return 0
  pid="$(cat "$f")"
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null
  rm -f "$f"
}

# Clients first, the database last, etcd after the nodes (Patroni stops PostgreSQL on SIGTERM).
stop haproxy-caja
for i in "${!CAJA_PORTS[@]}"; do stop "caja$i"; done
stop pgbouncer
stop haproxy-db
for n in "${NODES[@]}"; do stop "patroni-$n"; done
# A node killed with SIGKILL (kill-primary) may have left Patroni or a postmaster of its own.
for n in "${NODES[@]}"; do
  pids="$(pgrep -f "patroni $HA_DIR/$n.yml" | tr '\n' ' ')"
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  if [ -f "$HA_DIR/$n/data/postmaster.pid" ]; then
    as_postgres "$PG_BIN/pg_ctl" -D "$HA_DIR/$n/data" stop -m immediate >/dev/null 2>&1
  fi
done
if [ -f "$HA_DIR/pitr/data/postmaster.pid" ]; then
  as_postgres "$PG_BIN/pg_ctl" -D "$HA_DIR/pitr/data" stop -m immediate >/dev/null 2>&1
fi
for i in 0 1 2; do stop "etcd$i"; done
rm -rf "$HA_DIR"
echo "stopped; $HA_DIR removed"
