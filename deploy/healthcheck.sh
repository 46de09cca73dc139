#!/bin/sh
# Docker HEALTHCHECK of the erp-sync image, for every way the image runs. The entrypoint
# (deploy/docker-entrypoint.sh) writes what runs into "$ERP_SYNC_HEARTBEAT.mode":
#
# - `daemon` (`start`, the default), or no mode file (an entrypoint of your own): healthy when the
#   ops server's /healthz answers 200, i.e. the process is alive and its event loop responsive.
#   ERP_SYNC_HEALTH_URL says where (default http://127.0.0.1:9464/healthz: server.port of the
#   config). /healthz needs no password, also when server.host is not loopback. Readiness (/readyz:
#   Redis, API key, paused) is not health: a daemon waiting for Redis must not be restarted.
# - `loop` (the run-once loop): healthy when a run-once finished with exit code 0 less than
#   ERP_SYNC_HEALTH_MAX_AGE seconds ago (default: 5 x ERP_SYNC_INTERVAL + 300, i.e. 600 s with
#   the default 60 s interval). A run that fails (exit 1 or 2) does not refresh the heartbeat, so
#   a failure that persists turns the container unhealthy, while one transient failure does not.
# - `sandbox URL` (`sandbox ...`): healthy when the sandbox answers HTTP at URL (any status: the
#   probe has no API key).
# - `command NAME` (status, check, demo, ...): healthy while it runs; nothing else to probe.
# - `halted REASON`: the daemon or the loop ended with exit code 64, 65 or 78 (usage, a store of
#   another company, configuration), which a restart cannot cure; the entrypoint keeps the
#   container up instead of letting the restart policy loop: unhealthy, with the reason.
set -u

heartbeat=${ERP_SYNC_HEARTBEAT:-${TMPDIR:-/tmp}/erp-sync.heartbeat}

mode=daemon
target=''
if [ -f "$heartbeat.mode" ]; then
  read -r mode target <"$heartbeat.mode"
fi

probe() { # url, "ok" (healthy on a 2xx answer) or "any" (on any HTTP answer)
  # No curl in the slim image: Node's fetch, bounded by a timeout.
  # shellcheck disable=SC2016 # JavaScript, not shell
  exec node -e '
    const [url, want] = process.argv.slice(1);
    fetch(url, { signal: AbortSignal.timeout(5000) }).then(
      async (response) => {
        const body = (await response.text()).slice(0, 300);
        const healthy = response.ok || want === "any";
        console.log(`${healthy ? "healthy" : "unhealthy"}: ${url} answered ${response.status} ${body}`);
        process.exit(healthy ? 0 : 1);
      },
      (error) => {
        console.log(`unhealthy: ${url}: ${error.cause?.code ?? error.name}`);
        process.exit(1);
      },
    );
  ' "$1" "$2"
}

case $mode in
  daemon) probe "${ERP_SYNC_HEALTH_URL:-http://127.0.0.1:9464/healthz}" ok ;;
  sandbox) probe "$target" any ;;
  command)
    echo "healthy: erp-sync ${target:-} runs (no probe applies to this command)"
    exit 0
    ;;
  halted)
    echo "unhealthy: ${target:-stopped on an error a restart cannot cure}"
    exit 1
    ;;
  loop) ;;
  *)
    echo "unhealthy: unknown mode '$mode' in $heartbeat.mode"
    exit 1
    ;;
esac

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
