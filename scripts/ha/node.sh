#!/usr/bin/env bash
# One PostgreSQL node under Patroni: start it (a node that was primary and was killed comes back
# as a standby: Patroni rewinds it with pg_rewind and follows the new leader), or kill it as a
# crash would (SIGKILL to Patroni and to the postmaster, nothing flushed, nothing handed over).
#   scripts/ha/node.sh start pg1 | kill pg1
set -euo pipefail
source "$(dirname "$0")/env.sh"
cmd="${1:-}" n="${2:-}"
i="$(node_index "$n")"

case "$cmd" in
  start)
    # PostgreSQL refuses a data directory it does not own or that others can read.
    [ -d "$HA_DIR/$n/data" ] && chmod 700 "$HA_DIR/$n/data"
    run=()
    [ "$(id -u)" = 0 ] && run=(runuser -u postgres --)
    start_bg "patroni-$n" "${run[@]}" "$(tool patroni)" "$HA_DIR/$n.yml"
    # Any answer of its REST API: /liveness itself says 503 while a new standby is still being
    # cloned (pg_basebackup), which takes a while on a busy machine.
    wait_for "Patroni $n" 120 curl -sS -o /dev/null "http://127.0.0.1:${REST_PORTS[$i]}/liveness" ||
      { tail -n 40 "$HA_DIR/logs/patroni-$n.log" >&2; exit 1; }
    ;;
  kill)
    # Patroni first, or it would restart the postmaster at once and no failover would happen.
    # Only the processes of this node of this cluster (the config file's path says which).
    pp="$(pgrep -f "patroni $HA_DIR/$n.yml" | tr '\n' ' ' || true)"
    [ -n "$pp" ] && kill -9 $pp 2>/dev/null || true
    if [ -f "$HA_DIR/$n/data/postmaster.pid" ]; then
      pm="$(head -n 1 "$HA_DIR/$n/data/postmaster.pid")"
      kill -9 "$pm" 2>/dev/null || true
    fi
    echo "killed $n (patroni ${pp:-none}, postmaster ${pm:-none})"
    ;;
  *)
    echo "usage: $0 start|kill pg1|pg2" >&2
    exit 2
    ;;
esac
