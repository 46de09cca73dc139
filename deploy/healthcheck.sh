#!/bin/sh
# Docker HEALTHCHECK for the run-once loop (deploy/docker-entrypoint.sh).
# Healthy when a run-once finished with exit code 0 less than ERP_SYNC_HEALTH_MAX_AGE seconds ago
# (default: 5 x ERP_SYNC_INTERVAL + 300, i.e. 600 s with the default 60 s interval). A run that
# fails (exit 1 or 2) does not refresh the heartbeat, so a failure that persists turns the
# container unhealthy, while one transient failure does not.
set -u

heartbeat=${ERP_SYNC_HEARTBEAT:-${TMPDIR:-/tmp}/erp-sync.heartbeat}
interval=${ERP_SYNC_INTERVAL:-60}
case $interval in '' | *[!0-9]*) interval=60 ;; esac
max_age=${ERP_SYNC_HEALTH_MAX_AGE:-$((interval * 5 + 300))}
case $max_age in '' | *[!0-9]*)
  echo "ERP_SYNC_HEALTH_MAX_AGE must be a whole number of seconds, got '$max_age'"
  exit 1
  ;;
esac

if [ ! -r "$heartbeat" ] || ! read -r last _ <"$heartbeat"; then
  echo "unhealthy: no successful run yet ($heartbeat is missing or unreadable)"
  exit 1
fi
case $last in '' | *[!0-9]*)
  echo "unhealthy: $heartbeat does not start with a time"
  exit 1
  ;;
esac
age=$(($(date +%s) - last))
if [ "$age" -gt "$max_age" ]; then
  echo "unhealthy: the last successful run finished ${age}s ago (limit ${max_age}s)"
  exit 1
fi
echo "healthy: the last successful run finished ${age}s ago (limit ${max_age}s)"
