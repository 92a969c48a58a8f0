#!/usr/bin/env bash
# Crashes the current primary (SIGKILL to its Patroni and its postmaster) and prints its name.
set -euo pipefail
source "$(dirname "$0")/env.sh"
p="$(primary_node)" || { echo "no primary" >&2; exit 1; }
"$(dirname "$0")/node.sh" kill "$p" >&2
echo "$p"
