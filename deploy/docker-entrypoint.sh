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
#   ERP_SYNC_ON_HALT        what the daemon and the loop do on exit code 64, 65 or 78: `wait` (default)
#                           or `exit` (see below)
#
# Exit codes 64, 65 and 78 of the daemon or of a run-once in the loop (a usage error, a store of
# another company, a configuration error; 78 as well for invalid loop settings) cannot be cured by a
# restart: instead of exiting, which `restart: unless-stopped` would answer with a restart every few
# seconds for ever, the entrypoint logs why (level 60), writes "halted CODE REASON" into the mode
# file (deploy/healthcheck.sh then reports the container unhealthy with that reason) and waits for
# SIGTERM (`docker stop`), then exits with that code. ERP_SYNC_ON_HALT=exit exits at once instead.
#
# Other exit codes of the loop: 0 stopped by SIGTERM/SIGINT (the running run-once is told to stop and
# waited for); 126/127 when erp-sync cannot be run; with ERP_SYNC_MAX_RUNS, the code of the last
# run. Exit code 1 (a pipeline failed) and 2 (fatal, e.g. the API key was refused) do not stop the
# loop: 1 waits the interval, 2 waits ERP_SYNC_FATAL_BACKOFF. The daemon (`start`) runs as a child
# of this script, which forwards SIGTERM, SIGINT and SIGHUP (reload) to it and exits with its code.
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

child=''

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

halt() { # exit code, what exited, optional reason: stay up (unhealthy) instead of a restart loop
  code=$1
  case ${3:-$code} in
    64) why='usage error (an unknown command, option or value)' ;;
    65) why="the store belongs to another company's account" ;;
    78) why='invalid configuration' ;;
    *) why=$3 ;;
  esac
  mark "halted $2 exited $code: $why; fix it, then restart the container (details in its log)"
  if [ "${ERP_SYNC_ON_HALT:-wait}" = exit ]; then
    log 60 "$why: not retrying; fix it and start again" "\"exitCode\":$code"
    exit "$code"
  fi
  log 60 "$why: not retrying; the container stays up, unhealthy, until it is stopped (no restart loop); fix it, then restart it" "\"exitCode\":$code"
  sleeper=''
  trap 'kill "$sleeper" 2>/dev/null; exit "$code"' TERM INT
  while :; do
    sleep 86400 &
    sleeper=$!
    wait "$sleeper"
  done
}

# The daemon as a child: signals forwarded (HUP: reload), its exit code passed on, except those
# that a restart cannot cure.
run_daemon() {
  "$erp_sync" "$@" </dev/null &
  child=$!
  trap 'kill -TERM "$child" 2>/dev/null' TERM
  trap 'kill -INT "$child" 2>/dev/null' INT
  trap 'kill -HUP "$child" 2>/dev/null' HUP
  wait_child
  code=$?
  trap - TERM INT HUP
  case $code in 64 | 65 | 78) halt "$code" 'erp-sync start' ;; esac
  exit "$code"
}

# Anything but the loop: hand the process over to erp-sync (signals then go straight to it).
if [ "$#" -gt 0 ] && [ "$1" != loop ]; then
  command=$(command_of "$@")
  case $command in
    start)
      mark daemon
      run_daemon "$@"
      ;;
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

interval=$(setting ERP_SYNC_INTERVAL "${ERP_SYNC_INTERVAL:-}" 60) || halt 78 'the loop' 'invalid loop setting'
backoff=$(setting ERP_SYNC_FATAL_BACKOFF "${ERP_SYNC_FATAL_BACKOFF:-}" 300) || halt 78 'the loop' 'invalid loop setting'
max_runs=$(setting ERP_SYNC_MAX_RUNS "${ERP_SYNC_MAX_RUNS:-}" 0) || halt 78 'the loop' 'invalid loop setting'

stopping=0
sleeper=''
on_signal() {
  stopping=1
  # run-once stops on SIGTERM and SIGINT alike; TERM is also what Docker and systemd send.
  if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; fi
  # Ends the pause between runs, also when the signal came before `wait` started on it.
  if [ -n "$sleeper" ]; then kill "$sleeper" 2>/dev/null || true; fi
}
trap 'on_signal' TERM INT

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
      trap - TERM INT
      halt "$code" 'erp-sync run-once'
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
    # A signal that arrived after the check above and before $sleeper was set has not ended it.
    [ "$stopping" = 1 ] && kill "$sleeper" 2>/dev/null
    wait "$sleeper" # returns at once on SIGTERM/SIGINT (trap)
    kill "$sleeper" 2>/dev/null
    sleeper=''
  fi
done
