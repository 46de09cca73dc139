#!/bin/sh
# erp-sync container entrypoint (started by tini, the image's init process).
#
#   docker-entrypoint.sh start                the daemon, the image's default command: `erp-sync start`
#                                             (BullMQ on Redis, ops server on server.port)
#   docker-entrypoint.sh loop [FLAGS...]      the Redis-less alternative: `erp-sync run-once` every
#                                             ERP_SYNC_INTERVAL s; FLAGS go to run-once (e.g. --only stock)
#   docker-entrypoint.sh                      the same loop
#   docker-entrypoint.sh ARGS...              `erp-sync ARGS...` (status, check, sync, jobs, sandbox ...)
#
# Environment (all optional):
#   ERP_SYNC_INTERVAL       seconds between the end of a run and the start of the next (default 60)
#   ERP_SYNC_FATAL_BACKOFF  seconds to wait after exit code 2, e.g. a refused API key (default 300)
#   ERP_SYNC_MAX_RUNS       stop after this many runs, exiting with the last run's code (default 0: never)
#   ERP_SYNC_HEARTBEAT      file rewritten after each successful run of the loop (default
#                           $TMPDIR/erp-sync.heartbeat); deploy/healthcheck.sh checks its age. Every
#                           mode also writes "$ERP_SYNC_HEARTBEAT.mode", which tells the health check
#                           what this container runs: `daemon`, `loop`, `sandbox URL` or
#                           `command NAME` (any other sub-command).
#   ERP_SYNC_BIN            the erp-sync executable (default: erp-sync on PATH)
#
# Exit codes of the loop: 0 stopped by SIGTERM/SIGINT (the running run-once is told to stop and
# waited for); 64, 65 or 78 at once when run-once reports a usage error, a store of another account
# or a configuration error (retrying cannot help), and 78 as well for invalid loop settings; 126/127 when erp-sync cannot be run; with
# ERP_SYNC_MAX_RUNS, the code of the last run. Exit code 1 (a pipeline failed) and 2 (fatal, e.g.
# the API key was refused) do not stop the loop: 1 waits the interval, 2 waits ERP_SYNC_FATAL_BACKOFF.
#
# The loop's own log lines are JSON on stderr, like erp-sync's (pino) lines, with "component":"loop".
set -u

erp_sync=${ERP_SYNC_BIN:-erp-sync}

log() { # pino level number, message, optional extra JSON members
  printf '{"level":%s,"time":"%s","app":"erp-sync","component":"loop","msg":"%s"%s}\n' \
    "$1" "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" "$2" "${3:+,$3}" >&2
}

heartbeat=${ERP_SYNC_HEARTBEAT:-${TMPDIR:-/tmp}/erp-sync.heartbeat}

mark() { # what this container runs, for deploy/healthcheck.sh
  if ! printf '%s\n' "$1" >"$heartbeat.mode"; then
    log 40 'cannot write the health check mode file' "\"file\":\"$heartbeat.mode\""
  fi
}

command_of() { # the sub-command among erp-sync's arguments: the first word after the global options
  while [ "$#" -gt 0 ]; do
    case $1 in
      -c | --config) [ "$#" -gt 1 ] && shift ;;
      -*) ;;
      *)
        printf '%s' "$1"
        return
        ;;
    esac
    shift
  done
}

sandbox_url() { # where `sandbox ARGS` listens, as seen from inside the container (defaults 127.0.0.1:8787)
  host=127.0.0.1
  port=8787
  while [ "$#" -gt 0 ]; do
    case $1 in
      --host) [ "$#" -gt 1 ] && shift && host=$1 ;;
      --host=*) host=${1#--host=} ;;
      --port) [ "$#" -gt 1 ] && shift && port=$1 ;;
      --port=*) port=${1#--port=} ;;
    esac
    shift
  done
  case $host in
    '' | 0.0.0.0 | ::) host=127.0.0.1 ;;
    *:*) host="[$host]" ;;
  esac
  # --port 0 picks a free port that only the sandbox's own log tells
  [ "$port" = 0 ] || printf 'http://%s:%s/api/v2/account' "$host" "$port"
}

# Anything but the loop: hand the process over to erp-sync (signals then go straight to it).
if [ "$#" -gt 0 ] && [ "$1" != loop ]; then
  command=$(command_of "$@")
  case $command in
    start) mark daemon ;;
    sandbox)
      url=$(sandbox_url "$@")
      if [ -n "$url" ]; then mark "sandbox $url"; else mark 'command sandbox'; fi
      ;;
    *) mark "command ${command:-erp-sync}" ;;
  esac
  exec "$erp_sync" "$@"
fi
[ "$#" -gt 0 ] && shift

setting() { # name, value, default: prints the value when it is a whole number of seconds
  value=${2:-$3}
  case $value in
    '' | *[!0-9]*)
      log 60 "$1 must be a whole number of seconds, got '$(printf '%s' "$value" | tr -cd 'A-Za-z0-9._ -')'" '"exitCode":78'
      exit 78
      ;;
  esac
  printf '%s' "$value"
}

interval=$(setting ERP_SYNC_INTERVAL "${ERP_SYNC_INTERVAL:-}" 60) || exit 78
backoff=$(setting ERP_SYNC_FATAL_BACKOFF "${ERP_SYNC_FATAL_BACKOFF:-}" 300) || exit 78
max_runs=$(setting ERP_SYNC_MAX_RUNS "${ERP_SYNC_MAX_RUNS:-}" 0) || exit 78

child=''
stopping=0
on_signal() {
  stopping=1
  # run-once stops on SIGTERM and SIGINT alike; TERM is also what Docker and systemd send.
  if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; fi
}
trap 'on_signal' TERM INT

# Waits for $child; a trapped signal interrupts `wait`, so wait again until it has really exited.
wait_child() {
  wait "$child"
  status=$?
  while kill -0 "$child" 2>/dev/null; do
    wait "$child"
    status=$?
  done
  child=''
  return "$status"
}

stop() {
  log 30 'stopped by signal' "\"runs\":$run"
  exit 0
}

mark loop
log 30 'loop started' "\"intervalSeconds\":$interval,\"fatalBackoffSeconds\":$backoff,\"maxRuns\":$max_runs,\"heartbeat\":\"$heartbeat\""
run=0
while :; do
  [ "$stopping" = 1 ] && stop
  run=$((run + 1))
  started=$(date +%s)
  log 30 'run started' "\"run\":$run"
  "$erp_sync" run-once "$@" </dev/null &
  child=$!
  # A signal that arrived just before $child was set has not been forwarded yet.
  [ "$stopping" = 1 ] && kill -TERM "$child" 2>/dev/null
  wait_child
  code=$?
  finished=$(date +%s)
  extra="\"run\":$run,\"exitCode\":$code,\"durationSeconds\":$((finished - started))"
  [ "$stopping" = 1 ] && extra="$extra,\"stopRequested\":true"
  if [ "$code" = 0 ]; then
    # "<epoch seconds> <run>", replaced atomically so the health check never reads half a file
    if ! { printf '%s %s\n' "$finished" "$run" >"$heartbeat.tmp" && mv -f "$heartbeat.tmp" "$heartbeat"; }; then
      log 40 'cannot write the heartbeat file' "\"heartbeat\":\"$heartbeat\""
    fi
    log 30 'run finished' "$extra"
  else
    log 50 'run failed' "$extra"
  fi
  [ "$stopping" = 1 ] && stop

  pause=$interval
  case $code in
    64 | 65 | 78)
      log 60 'usage or configuration error, or a store of another account: not retrying; fix it and start again' "$extra"
      exit "$code"
      ;;
    126 | 127)
      log 60 "cannot execute $erp_sync" "$extra"
      exit "$code"
      ;;
    2)
      pause=$backoff
      log 50 "fatal error (e.g. the API key was refused): next run in ${backoff}s" "$extra"
      ;;
  esac
  if [ "$max_runs" -gt 0 ] && [ "$run" -ge "$max_runs" ]; then
    log 30 'ERP_SYNC_MAX_RUNS reached' "$extra"
    exit "$code"
  fi

  if [ "$pause" -gt 0 ]; then
    sleep "$pause" &
    sleeper=$!
    wait "$sleeper" # returns at once on SIGTERM/SIGINT (trap)
    kill "$sleeper" 2>/dev/null
  fi
done
