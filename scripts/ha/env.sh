# Shared by the scripts of scripts/ha/ (sourced, not run): where the cluster lives and which
# loopback ports its members use. Each member listens on its own port as a separate host would.
#   HA_DIR        state, data, logs and pid files (default /tmp/caja-ha)
#   HA_PORT_BASE  first port of the block of 100 the cluster uses (default 43000)
HA_DIR="${HA_DIR:-/tmp/caja-ha}"
HA_PORT_BASE="${HA_PORT_BASE:-43000}"
B="$HA_PORT_BASE"

ETCD_CLIENT_PORTS=($((B + 1)) $((B + 2)) $((B + 3)))
ETCD_PEER_PORTS=($((B + 11)) $((B + 12)) $((B + 13)))
NODES=(pg1 pg2)
PG_PORTS=($((B + 21)) $((B + 22)))
REST_PORTS=($((B + 31)) $((B + 32)))
PG_WRITE_PORT=$((B + 40))   # haproxy: the node whose Patroni says it is the primary
PGBOUNCER_PORT=$((B + 45))  # pgbouncer, in front of the write port
CAJA_LB_PORT=$((B + 50))    # haproxy: the caja instances
CAJA_PORTS=($((B + 61)) $((B + 62)) $((B + 63)))
PITR_PORT=$((B + 70))       # scripts/ha/pitr.sh's restored server

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
ETCD_HOSTS="127.0.0.1:${ETCD_CLIENT_PORTS[0]},127.0.0.1:${ETCD_CLIENT_PORTS[1]},127.0.0.1:${ETCD_CLIENT_PORTS[2]}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

tool() {
  local d
  for d in /usr/sbin /usr/bin /usr/local/sbin /usr/local/bin; do
    [ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
  done
  return 1
}

# PostgreSQL and Patroni refuse to run as root: as root they run as postgres.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

node_index() {
  local i
  for i in "${!NODES[@]}"; do [ "${NODES[$i]}" = "$1" ] && { echo "$i"; return 0; }; done
  echo "unknown node '$1' (${NODES[*]})" >&2
  return 1
}

# Starts a command in the background with its output in $HA_DIR/logs/<name>.log and its pid in
# $HA_DIR/run/<name>.pid.
start_bg() {
  local name="$1"
  shift
  setsid "$@" >>"$HA_DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$HA_DIR/run/$name.pid"
}

wait_for() {
  local what="$1" tries="$2"
  shift 2
  local i
  for ((i = 0; i < tries; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "timed out waiting for $what" >&2
  return 1
}

# The Patroni member that says it is the primary (HTTP 200 on /primary), or nothing.
primary_node() {
  local i
  for i in "${!NODES[@]}"; do
    if curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:${REST_PORTS[$i]}/primary" 2>/dev/null; then
      echo "${NODES[$i]}"
      return 0
    fi
  done
  return 1
}
