#!/usr/bin/env bash
# Starts caja's high-availability topology on this machine's loopback, from Debian's packages
# (etcd-server, patroni, haproxy, pgbouncer, postgresql-15), each member on its own port as a
# separate host would be (docs/operations.md, High availability):
#
#   etcd ×3 ── Patroni pg1 (PostgreSQL 15) ⇄ Patroni pg2 (synchronous standby)
#                     │ /primary checks
#   haproxy (write port → the primary) ── pgbouncer ── caja ×3 ── haproxy (caja's port)
#
# Usage: scripts/ha/start.sh            everything (the caja instances need `npm run build`)
#        HA_CAJA=0 scripts/ha/start.sh  the database side only
# Then:  scripts/ha/status.sh, scripts/ha/kill-primary.sh, scripts/ha/node.sh start pg1,
#        scripts/ha/stop.sh (stops everything and deletes $HA_DIR).
# caja's own settings (CAJA_*) are passed on from the environment.
set -euo pipefail
source "$(dirname "$0")/env.sh"

for t in etcd patroni haproxy pgbouncer; do
  tool "$t" >/dev/null || { echo "missing $t: apt-get install etcd-server patroni haproxy pgbouncer" >&2; exit 2; }
done
[ -x "$PG_BIN/postgres" ] || { echo "missing PostgreSQL 15 in $PG_BIN: apt-get install postgresql-15" >&2; exit 2; }
if [ -e "$HA_DIR/run" ]; then echo "$HA_DIR is in use: scripts/ha/stop.sh first" >&2; exit 2; fi

mkdir -p "$HA_DIR"/{logs,run,wal-archive}
chmod 755 "$HA_DIR"
# The database side runs as postgres: its directories are postgres's.
if [ "$(id -u)" = 0 ]; then
  chown postgres "$HA_DIR" "$HA_DIR/logs" "$HA_DIR/wal-archive"
  as_postgres test -w "$HA_DIR" || { echo "postgres cannot write in $HA_DIR: a parent directory is closed to it (chmod 755)" >&2; rm -rf "$HA_DIR"; exit 2; }
fi

# --- etcd: three members, the DCS that holds the leader key ----------------------------------
cluster=""
for i in 0 1 2; do cluster+="${cluster:+,}etcd$i=http://127.0.0.1:${ETCD_PEER_PORTS[$i]}"; done
for i in 0 1 2; do
  start_bg "etcd$i" "$(tool etcd)" --name "etcd$i" --data-dir "$HA_DIR/etcd$i" \
    --listen-client-urls "http://127.0.0.1:${ETCD_CLIENT_PORTS[$i]}" --advertise-client-urls "http://127.0.0.1:${ETCD_CLIENT_PORTS[$i]}" \
    --listen-peer-urls "http://127.0.0.1:${ETCD_PEER_PORTS[$i]}" --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PEER_PORTS[$i]}" \
    --initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token caja-ha \
    --heartbeat-interval 100 --election-timeout 1000 --logger zap --log-level warn
done
for i in 0 1 2; do wait_for "etcd$i" 120 curl -fsS "http://127.0.0.1:${ETCD_CLIENT_PORTS[$i]}/health"; done

# --- Patroni: two PostgreSQL 15 nodes, synchronous replication ----------------------------------
for i in "${!NODES[@]}"; do
  n="${NODES[$i]}"
  mkdir -p "$HA_DIR/$n"
  [ "$(id -u)" = 0 ] && chown postgres "$HA_DIR/$n"
  chmod 700 "$HA_DIR/$n"
  cat >"$HA_DIR/$n.yml" <<EOF
scope: caja
name: $n
restapi:
  listen: 127.0.0.1:${REST_PORTS[$i]}
  connect_address: 127.0.0.1:${REST_PORTS[$i]}
etcd3:
  hosts: $ETCD_HOSTS
bootstrap:
  dcs:
    # The leader key lives ttl seconds without its holder's renewal: a killed primary is
    # replaced after at most ttl + loop_wait.
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    # A commit is acknowledged only once the synchronous standby has it, and only a node that was
    # synchronous may be promoted: no acknowledged write is lost (RPO 0). Not strict: with the
    # standby gone, the primary goes on alone rather than stopping every write.
    synchronous_mode: true
    synchronous_mode_strict: false
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        synchronous_commit: 'on'
        wal_level: replica
        hot_standby: 'on'
        wal_log_hints: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 200
        archive_mode: 'on'
        archive_command: 'test ! -f $HA_DIR/wal-archive/%f && cp %p $HA_DIR/wal-archive/%f'
        archive_timeout: 60
  initdb:
    - encoding: UTF8
    - data-checksums
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:${PG_PORTS[$i]}
  connect_address: 127.0.0.1:${PG_PORTS[$i]}
  data_dir: $HA_DIR/$n/data
  bin_dir: $PG_BIN
  pgpass: $HA_DIR/$n/pgpass
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: replicator
      password: replicator
    rewind:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: $HA_DIR/$n
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
  nosync: false
EOF
  [ "$(id -u)" = 0 ] && chown postgres "$HA_DIR/$n.yml"
done
"$(dirname "$0")/node.sh" start pg1
wait_for "pg1 as primary" 240 curl -fsS -o /dev/null "http://127.0.0.1:${REST_PORTS[0]}/primary" ||
  { tail -n 40 "$HA_DIR/logs/patroni-pg1.log" >&2; exit 1; }
"$(dirname "$0")/node.sh" start pg2
wait_for "pg2 as synchronous standby" 240 curl -fsS -o /dev/null "http://127.0.0.1:${REST_PORTS[1]}/sync" ||
  { tail -n 40 "$HA_DIR/logs/patroni-pg2.log" >&2; exit 1; }

# --- haproxy on the write port: the node whose Patroni answers 200 on /primary -------------------
cat >"$HA_DIR/haproxy-db.cfg" <<EOF
global
  maxconn 2000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
frontend pg_write
  bind 127.0.0.1:$PG_WRITE_PORT
  default_backend pg_primary
backend pg_primary
  option httpchk GET /primary
  http-check expect status 200
  # A demoted or dead primary's sessions are cut as soon as it is marked down, so that nothing
  # keeps writing to it and pgbouncer reconnects (to the new primary).
  default-server inter 500ms fastinter 250ms fall 2 rise 1 on-marked-down shutdown-sessions
  server pg1 127.0.0.1:${PG_PORTS[0]} check port ${REST_PORTS[0]}
  server pg2 127.0.0.1:${PG_PORTS[1]} check port ${REST_PORTS[1]}
EOF
start_bg haproxy-db "$(tool haproxy)" -f "$HA_DIR/haproxy-db.cfg" -db
wait_for "the write port" 40 "$PG_BIN/pg_isready" -h 127.0.0.1 -p "$PG_WRITE_PORT"
as_postgres "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_WRITE_PORT" -U postgres -d postgres -qAtc "SELECT 1 FROM pg_database WHERE datname = 'caja'" | grep -q 1 ||
  as_postgres "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_WRITE_PORT" -U postgres -d postgres -qc "CREATE DATABASE caja"

# --- pgbouncer beside it, in transaction mode --------------------------------------------------
printf '"postgres" ""\n' >"$HA_DIR/userlist.txt"
cat >"$HA_DIR/pgbouncer.ini" <<EOF
[databases]
caja = host=127.0.0.1 port=$PG_WRITE_PORT dbname=caja user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $HA_DIR/userlist.txt
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
; After a failover the write port answers again within seconds: retry logins every second,
; not every 15 (the default), and give up on a server connection attempt after 2 s.
server_login_retry = 1
server_connect_timeout = 2
; A client waits at most this long for a server connection (caja's own bounds are shorter).
query_wait_timeout = 15
$([ "$(id -u)" = 0 ] && echo "user = postgres")
EOF
chmod 644 "$HA_DIR/pgbouncer.ini" "$HA_DIR/userlist.txt"
start_bg pgbouncer "$(tool pgbouncer)" "$HA_DIR/pgbouncer.ini"
wait_for "pgbouncer" 40 "$PG_BIN/pg_isready" -h 127.0.0.1 -p "$PGBOUNCER_PORT" -d caja

# --- caja ×3 behind haproxy -----------------------------------------------------------------------
DATABASE_URL="postgres://postgres@127.0.0.1:$PGBOUNCER_PORT/caja?prepared_statements=false"
echo "$DATABASE_URL" >"$HA_DIR/database-url"
if [ "${HA_CAJA:-3}" != 0 ]; then
  [ -f "$REPO/dist/main.mjs" ] || node "$REPO/scripts/build.mjs"
  [ -f "$HA_DIR/master.key" ] || head -c 32 /dev/urandom | base64 >"$HA_DIR/master.key"
  [ -f "$HA_DIR/admin.token" ] || head -c 24 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=' >"$HA_DIR/admin.token"
  chmod 600 "$HA_DIR/master.key" "$HA_DIR/admin.token"
  for i in "${!CAJA_PORTS[@]}"; do
    mkdir -p "$HA_DIR/caja$i"
    DATABASE_URL="$DATABASE_URL" PORT="${CAJA_PORTS[$i]}" HOST=127.0.0.1 DATA_DIR="$HA_DIR/caja$i" \
      CAJA_ENV="${CAJA_ENV:-staging}" CAJA_PROCESSES="${CAJA_PROCESSES:-1}" LOG_LEVEL="${LOG_LEVEL:-warn}" \
      CAJA_MASTER_KEY="$(cat "$HA_DIR/master.key")" CAJA_ADMIN_TOKEN="${CAJA_ADMIN_TOKEN:-$(cat "$HA_DIR/admin.token")}" \
      PUBLIC_BASE_URL="${PUBLIC_BASE_URL:-http://127.0.0.1:$CAJA_LB_PORT}" \
      start_bg "caja$i" node "$REPO/dist/main.mjs"
  done
  for i in "${!CAJA_PORTS[@]}"; do wait_for "caja$i" 120 curl -fsS "http://127.0.0.1:${CAJA_PORTS[$i]}/health"; done

  cat >"$HA_DIR/haproxy-caja.cfg" <<EOF
global
  maxconn 2000
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch
frontend caja
  bind 127.0.0.1:$CAJA_LB_PORT
  default_backend caja
backend caja
  balance roundrobin
  # Liveness: any answer of the process. While the database fails over every instance's /health
  # says 503, and the instances' own 503s (each API's format, Retry-After) are what clients
  # should get, not haproxy's "no server available" (docs/operations.md, Health).
  option httpchk GET /health
  http-check expect rstatus ^(200|503)$
  timeout check 3s
  default-server inter 500ms fall 2 rise 2
$(for i in "${!CAJA_PORTS[@]}"; do echo "  server caja$i 127.0.0.1:${CAJA_PORTS[$i]} check"; done)
EOF
  start_bg haproxy-caja "$(tool haproxy)" -f "$HA_DIR/haproxy-caja.cfg" -db
  wait_for "caja behind haproxy" 40 curl -fsS "http://127.0.0.1:$CAJA_LB_PORT/health/ready"
fi

echo "caja HA cluster up in $HA_DIR"
echo "  caja:          http://127.0.0.1:$CAJA_LB_PORT (instances ${CAJA_PORTS[*]})"
echo "  DATABASE_URL:  $DATABASE_URL"
echo "  write port:    127.0.0.1:$PG_WRITE_PORT (haproxy → primary); nodes ${PG_PORTS[*]}, Patroni REST ${REST_PORTS[*]}"
echo "  primary:       $(primary_node || echo none)"
