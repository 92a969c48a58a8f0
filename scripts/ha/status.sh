#!/usr/bin/env bash
# The cluster's members as Patroni sees them (leader, sync standby, lag), and who is primary.
set -euo pipefail
source "$(dirname "$0")/env.sh"
patronictl -c "$HA_DIR/pg1.yml" list
echo "primary: $(primary_node || echo none)"
