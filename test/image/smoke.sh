#!/usr/bin/env bash
# Builds the Docker image from the Dockerfile as it is, once, and runs it as it is used: CI's image
# step (.ci/run). Needs root on a Debian host; reaches only the Debian archive and the npm registry.
#
#   test/image/smoke.sh                   engine, base images, image, checks, compose
#   NO_CACHE=1 test/image/smoke.sh        the image without the builder's cache (a cold build)
#   REBUILD_BASE=1 test/image/smoke.sh    the base images made again as well
#
# 1. The engine: installs docker.io, docker-compose (1.29), debootstrap and curl when missing, and
#    starts dockerd when none answers (no systemd: detached, log in $WORK/dockerd.log; it keeps
#    running for the next run).
# 2. The base images the Dockerfile and docker-compose.yml name, made without a registry when they
#    are missing (deploy/build-base-images.sh; kept between runs, like the Node download).
# 3. The image, erp-sync:local (docker-compose.yml's name), built by `docker-compose build` (the
#    legacy builder) from the files git tracks or would add (a copy in $WORK/context); the
#    builder's cache is kept between runs. Checks: Node is .nvmrc's, below ERP_SYNC_IMAGE_MAX_MB
#    (250), no npm, corepack, headers or compilers.
# 4. The checks, each one named when it fails: the sandbox; the daemon with Redis (ready, /healthz,
#    /readyz, uid 10001, a stock.csv reaching the platform, HEALTHCHECK healthy, docker stop exits
#    0 within the grace time); the sandbox's HEALTHCHECK; `docker run IMAGE status` as
#    docs/operations.md writes it; the loop (a run, HEALTHCHECK healthy, docker stop); and
#    `docker-compose --profile demo up --build` (no second build: the cache), its three services
#    healthy and the sample stock reaching the sandbox.
#
# Exit status 0 when every check passed, 1 at the first failure (its name is the last line). The
# containers, networks and volumes it made are removed at exit, failed or not; images stay (cache).
# Runs one at a time on a machine (a lock): runs share the container names and the image's tag.
#
# Environment (optional): ERP_SYNC_IMAGE_WORK (scratch and logs, default $TMPDIR/erp-sync-image),
# ERP_SYNC_IMAGE_MAX_MB (250), ERP_SYNC_CI_CACHE (downloads, see deploy/build-base-images.sh).
set -Eeuo pipefail
cd "$(dirname "$0")/../.."

WORK=${ERP_SYNC_IMAGE_WORK:-${TMPDIR:-/tmp}/erp-sync-image}
LOGS=$WORK/logs
IMAGE=erp-sync:local
MAX_MB=${ERP_SYNC_IMAGE_MAX_MB:-250}
NAME=erp-sync-smoke # label and name prefix of every container, network and volume made here
GRACE=45            # docker stop -t, as docker-compose.yml's stop_grace_period
T0=$(date +%s)

say() { printf '[image +%ss] %s\n' "$(($(date +%s) - T0))" "$*" >&2; }
ok() { printf '[image +%ss]   ok: %s\n' "$(($(date +%s) - T0))" "$*" >&2; }
fail() {
  FAILED=$*
  exit 1
}
record() { # label, seconds: one line of the timings summary
  printf '%-28s %5ss\n' "$1" "$2" >>"$LOGS/timings.txt"
}

[ "$(id -u)" = 0 ] || {
  echo 'test/image/smoke.sh: run as root (apt-get, dockerd, debootstrap)' >&2
  exit 1
}
mkdir -p "$LOGS" /run/lock
exec 9>/run/lock/erp-sync-image-smoke.lock
flock -w 1800 9 || {
  echo 'test/image/smoke.sh: another run holds /run/lock/erp-sync-image-smoke.lock' >&2
  exit 1
}
: >"$LOGS/timings.txt"
FAILED=''
DOCKERD_STARTED=''
trap 'FAILED=${FAILED:-"line $LINENO: $BASH_COMMAND"}' ERR

# ---- 1. the engine ----
step=$(date +%s)
missing=()
for pkg in docker.io docker-compose debootstrap curl; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # No recommends: docker.io would bring apparmor, cgroupfs-mount and needrestart.
  { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$LOGS/apt.log" 2>&1 ||
    { tail -20 "$LOGS/apt.log" >&2; fail "apt-get install ${missing[*]}"; }
fi
# Debian's client, not a newer one earlier on PATH (it may lack the plugins it expects).
DOCKER=/usr/bin/docker
docker() { "$DOCKER" "$@"; }
if ! docker info >/dev/null 2>&1; then
  say "starting dockerd (log: $WORK/dockerd.log)"
  setsid dockerd >>"$WORK/dockerd.log" 2>&1 </dev/null 9>&- &
  DOCKERD_STARTED=$!
  for _ in $(seq 60); do
    if docker info >/dev/null 2>&1; then break; fi
    sleep 1
  done
  docker info >/dev/null 2>&1 || { tail -20 "$WORK/dockerd.log" >&2; fail "dockerd did not answer within 60 s"; }
fi
say "engine: $(docker version -f 'client {{.Client.Version}}, server {{.Server.Version}}'), $(docker-compose version --short)${DOCKERD_STARTED:+, dockerd started (pid $DOCKERD_STARTED)}"
record "engine" $(($(date +%s) - step))

compose() { docker-compose -p "$NAME" --project-directory "$WORK/context" -f "$WORK/context/docker-compose.yml" "$@"; }
COMPOSE_UP=''
# Everything made here carries the label $NAME (compose: its project label); removed at exit.
remove_all() {
  local ids
  if [ -n "$COMPOSE_UP" ]; then
    compose --profile demo down -v --remove-orphans >>"$LOGS/compose.log" 2>&1 || true
  fi
  ids=$( (docker ps -aq --filter "label=$NAME" && docker ps -aq --filter "label=com.docker.compose.project=$NAME") | sort -u)
  # shellcheck disable=SC2086 # one id a word
  [ -z "$ids" ] || docker rm -f -v $ids >/dev/null 2>&1 || true
  docker network rm "$NAME" >/dev/null 2>&1 || true
  docker volume rm "$NAME-data" "$NAME-redis" >/dev/null 2>&1 || true
  # what compose made, should its `down` not have run (a run killed before its cleanup)
  for kind in network volume; do
    ids=$(docker "$kind" ls -q --filter "label=com.docker.compose.project=$NAME")
    # shellcheck disable=SC2086 # one id a word
    [ -z "$ids" ] || docker "$kind" rm $ids >/dev/null 2>&1 || true
  done
}
finish() {
  local rc=$?
  set +e
  if [ "$rc" != 0 ]; then
    # the last lines of every container of this run, for the reason
    for id in $( (docker ps -aq --filter "label=$NAME" && docker ps -aq --filter "label=com.docker.compose.project=$NAME") | sort -u); do
      docker logs --tail 30 "$id" >"$LOGS/container-$(docker inspect -f '{{.Name}}' "$id" | tr -d /).log" 2>&1
    done
  fi
  remove_all
  cat "$LOGS/timings.txt" >&2
  if [ "$rc" = 0 ]; then
    say "PASSED in $(($(date +%s) - T0))s"
  else
    say "FAILED: ${FAILED:-exit $rc at an unchecked step} (logs: $LOGS)"
  fi
  exit "$rc"
}
trap finish EXIT
remove_all # what a run killed before its cleanup left

# ---- 2. the base images ----
step=$(date +%s)
NODE_VERSION=$(tr -d ' \n' <.nvmrc)
DEFAULT_NODE_VERSION=$(sed -n 's/^ARG NODE_VERSION=//p' Dockerfile)
[ "$DEFAULT_NODE_VERSION" = "$NODE_VERSION" ] ||
  fail "the Dockerfile's NODE_VERSION default ($DEFAULT_NODE_VERSION) is not .nvmrc's ($NODE_VERSION)"
DOCKER=$DOCKER deploy/build-base-images.sh 2>&1 | tee "$LOGS/base-images.log" >&2 || fail "the base images (deploy/build-base-images.sh)"
record "base images" $(($(date +%s) - step))

# ---- 3. the image ----
step=$(date +%s)
rm -rf "$WORK/context" && mkdir -p "$WORK/context"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$WORK/context"
PASSWORD=smoke-$RANDOM$RANDOM
sed "s/^ERP_SYNC_DASHBOARD_PASSWORD=.*/ERP_SYNC_DASHBOARD_PASSWORD=$PASSWORD/" deploy/erp-sync.env.example >"$WORK/context/erp-sync.env"
compose config -q || fail "docker-compose config"
BEFORE_ID=$(docker images -q "$IMAGE")
# docker-compose's own build (docker-py, legacy builder): the way this host builds from the compose
# file, and the cache that `up --build` below finds (it misses a `docker build`'s cache: another
# context archive format).
say "docker-compose build erp-sync (legacy builder${NO_CACHE:+, no cache}; log: $LOGS/build.log)"
COMPOSE_DOCKER_CLI_BUILD=0 DOCKER_BUILDKIT=0 compose build ${NO_CACHE:+--no-cache} erp-sync >"$LOGS/build.log" 2>&1 ||
  { tail -40 "$LOGS/build.log" >&2; fail "docker-compose build (the Dockerfile as it is, legacy builder)"; }
BUILD_SECONDS=$(($(date +%s) - step))
IMAGE_ID=$(docker images -q "$IMAGE")
record "image build" "$BUILD_SECONDS"
SIZE_MB=$(($(docker image inspect -f '{{.Size}}' "$IMAGE") / 1000000))
ok "built in ${BUILD_SECONDS}s ($(grep -c ' ---> Using cache' "$LOGS/build.log" || true) cached steps), ${SIZE_MB} MB, id $IMAGE_ID"
[ "$BEFORE_ID" = "$IMAGE_ID" ] || [ -z "$BEFORE_ID" ] || docker image rm "$BEFORE_ID" >/dev/null 2>&1 || true
# The build stage's last image, tagged: it holds the builder's cache (npm ci, better-sqlite3's
# compile), which `docker image prune` would otherwise take as a dangling image.
stage=$(awk '/^ ---> [0-9a-f]+$/ { id = $2 } /^Step [0-9]+\/[0-9]+ : FROM .* AS runtime/ { print id; exit }' "$LOGS/build.log")
[ -z "$stage" ] || docker tag "$stage" erp-sync:build-stage
[ "$SIZE_MB" -lt "$MAX_MB" ] || fail "image size: ${SIZE_MB} MB, not below ${MAX_MB} MB"
got=$(docker run --rm --entrypoint node "$IMAGE" --version)
[ "$got" = "v$NODE_VERSION" ] || fail "Node in the image: $got, not .nvmrc's v$NODE_VERSION"
extra=$(docker run --rm --entrypoint /bin/sh "$IMAGE" -c \
  'for c in npm npx corepack yarn gcc g++ cc make python3; do command -v $c; done; find /usr/local/include /usr/local/lib -mindepth 1 -maxdepth 1')
[ -z "$extra" ] || fail "the image carries build tools: $(echo "$extra" | tr '\n' ' ')"
got=$(docker run --rm "$IMAGE" --version)
want=$(node -p 'require("./package.json").version')
[ "$got" = "$want" ] || fail "erp-sync --version in the image: '$got', not $want"
ok "size ${SIZE_MB} MB < ${MAX_MB} MB, node v$NODE_VERSION, erp-sync $got, no npm/corepack/headers/compilers"

# ---- 4. the checks ----
step=$(date +%s)
within() { # seconds, command...: polls the command each second until it succeeds, or returns 1
  local limit=$1 i
  shift
  for ((i = 0; i < limit; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  return 1
}
run() { # name, docker run arguments...: detached, labelled
  docker run -d --name "$NAME-$1" --label "$NAME" "${@:2}" >/dev/null || fail "docker run $NAME-$1"
}
logged() { docker logs "$1" 2>&1 | grep -q -- "$2"; }
health() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$1")" = healthy ]; }
last_probe() { docker inspect -f '{{range .State.Health.Log}}{{.Output}}{{end}}' "$1" | grep . | tail -1 | cut -c1-160; }
host_port() { docker port "$1" "$2" | sed -n 's/^127\.0\.0\.1://p' | head -1; }
status_of() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@"; }
api() { curl -fsS --max-time 10 -H "authorization: Bearer $KEY" "$API$1"; }
stock_is() { # sku, quantity: the platform's stock of sku is quantity
  api "/products/stock/list?search=$1" | grep -q "\"sku\":\"$1\"[^}]*\"stock_quantity\":$2[,}]"
}
drop_stock() { # container, sku, quantity: a stock.csv written as an ERP would (whole file at once)
  printf 'sku,variant_sku,quantity\n%s,,%s\n' "$2" "$3" |
    docker exec -i "$1" sh -c 'cat >/data/erp/.stock.csv.tmp && mv /data/erp/.stock.csv.tmp /data/erp/stock.csv'
}
stopped_cleanly() { # container: docker stop within the grace time, exit code 0
  local started took code
  started=$(date +%s)
  docker stop -t "$GRACE" "$1" >/dev/null
  took=$(($(date +%s) - started))
  code=$(docker inspect -f '{{.State.ExitCode}}' "$1")
  [ "$code" = 0 ] || fail "docker stop $1: exit code $code"
  [ "$took" -lt "$GRACE" ] || fail "docker stop $1: ${took}s, not within the ${GRACE}s grace time"
  ok "docker stop $1: exit 0 after ${took}s"
}

docker network create --label "$NAME" "$NAME" >/dev/null
docker volume create --label "$NAME" "$NAME-data" >/dev/null
docker volume create --label "$NAME" "$NAME-redis" >/dev/null

# the sandbox, published on the host's loopback, answers with the key from its ready line
run sandbox --network "$NAME" -p 127.0.0.1::8787 "$IMAGE" sandbox --host 0.0.0.0 --port 8787
within 60 logged "$NAME-sandbox" '"event":"ready"' || fail "sandbox: ready line (not within 60s)"
KEY=$(docker logs "$NAME-sandbox" 2>/dev/null | sed -n 's/.*"event":"ready".*"primary":"\([^"]*\)".*/\1/p' | head -1)
[ -n "$KEY" ] || fail "sandbox: no primary key in its ready line"
API=http://127.0.0.1:$(host_port "$NAME-sandbox" 8787)/api/v2
[ "$(status_of -H "authorization: Bearer $KEY" "$API/account")" = 200 ] || fail "sandbox: GET /account with its key is not 200"
[ "$(status_of "$API/account")" = 401 ] || fail "sandbox: GET /account without a key is not 401"
ok "sandbox: GET /account 200 with the key of its ready line, 401 without ($API)"

# Redis, with docker-compose.yml's flags
run redis --network "$NAME" -v "$NAME-redis:/data" redis:7-bookworm \
  redis-server --appendonly yes --appendfsync everysec --maxmemory-policy noeviction
within 30 docker exec "$NAME-redis" redis-cli ping || fail "redis: PING (not within 30s)"

# the daemon: the image's default command and configuration
run daemon --network "$NAME" -p 127.0.0.1::9464 -v "$NAME-data:/data" \
  -e "CMS_BASE_URL=http://$NAME-sandbox:8787/api/v2" -e "CMS_API_KEY=$KEY" \
  -e "ERP_SYNC_DASHBOARD_PASSWORD=$PASSWORD" -e "REDIS_URL=redis://$NAME-redis:6379" "$IMAGE"
started=$(date +%s)
within 90 logged "$NAME-daemon" '"event":"ready"' || fail "daemon: ready line (not within 90s)"
ok "daemon: ready line after $(($(date +%s) - started))s"
OPS=http://127.0.0.1:$(host_port "$NAME-daemon" 9464)
[ "$(status_of "$OPS/healthz")" = 200 ] || fail "daemon: /healthz is not 200"
within 60 curl -fsS --max-time 5 "$OPS/readyz" || fail "daemon: /readyz 200 (not within 60s)"
[ "$(status_of "$OPS/metrics")" = 401 ] || fail "daemon: /metrics without the password is not 401"
[ "$(status_of -u "any:$PASSWORD" "$OPS/metrics")" = 200 ] || fail "daemon: /metrics with the password is not 200"
ok "daemon: /healthz 200, /readyz 200, /metrics 401 without the password and 200 with it"
uids=$(docker top "$NAME-daemon" -eo uid,pid | awk 'NR > 1 { print $1 }' | sort -u | tr '\n' ' ')
[ "$uids" = "10001 " ] || fail "daemon: processes run as uid $uids, not 10001 only"
ok "daemon: every process runs as uid 10001"
SKU=DEMO-0001
before=$(api "/products/stock/list?search=$SKU" | grep -o "\"sku\":\"$SKU\"[^}]*" | grep -o '"stock_quantity":[0-9]*' | cut -d: -f2)
[ -n "$before" ] || fail "sandbox: no stock for $SKU"
WANT=$(((before + 1234) % 100000))
drop_stock "$NAME-daemon" "$SKU" "$WANT"
dropped=$(date +%s)
within 120 stock_is "$SKU" "$WANT" || fail "daemon: the dropped stock.csv ($SKU $before -> $WANT) on the platform (not within 120s)"
ok "daemon: a stock.csv dropped into the volume reached the platform in $(($(date +%s) - dropped))s ($SKU $before -> $WANT)"
within 75 health "$NAME-daemon" || fail "daemon: HEALTHCHECK not healthy within 75s (last probe: $(last_probe "$NAME-daemon"))"
ok "daemon: HEALTHCHECK healthy: $(last_probe "$NAME-daemon")"
stopped_cleanly "$NAME-daemon"

# a sandbox container's HEALTHCHECK fits it (it serves no /healthz)
within 75 health "$NAME-sandbox" || fail "sandbox: HEALTHCHECK not healthy within 75s (last probe: $(last_probe "$NAME-sandbox"))"
ok "sandbox: HEALTHCHECK healthy: $(last_probe "$NAME-sandbox")"

# docs/operations.md's one-shot sub-command, with the daemon's Redis
docker run --rm --label "$NAME" --network "$NAME" -e "REDIS_URL=redis://$NAME-redis:6379" \
  -v "$NAME-data:/data" "$IMAGE" status >"$LOGS/status.txt" 2>&1 ||
  { tail -5 "$LOGS/status.txt" >&2; fail "docker run IMAGE status (docs/operations.md)"; }
ok "docker run IMAGE status: $(head -1 "$LOGS/status.txt" | cut -c1-100)"

# the loop on the same volume: a run-once, a second stock change, its HEALTHCHECK, SIGTERM
run loop --network "$NAME" -v "$NAME-data:/data" -e "CMS_BASE_URL=http://$NAME-sandbox:8787/api/v2" \
  -e "CMS_API_KEY=$KEY" -e ERP_SYNC_INTERVAL=5 "$IMAGE" loop
drop_stock "$NAME-loop" "$SKU" $((WANT + 1))
within 120 logged "$NAME-loop" '"msg":"run finished"' || fail "loop: a run finished (not within 120s)"
within 60 stock_is "$SKU" $((WANT + 1)) || fail "loop: $SKU's stock $((WANT + 1)) on the platform (not within 60s)"
ok "loop: run-once finished, the second stock.csv reached the platform"
within 75 health "$NAME-loop" || fail "loop: HEALTHCHECK not healthy within 75s (last probe: $(last_probe "$NAME-loop"))"
ok "loop: HEALTHCHECK healthy: $(last_probe "$NAME-loop")"
stopped_cleanly "$NAME-loop"
remove_all
record "checks (docker run)" $(($(date +%s) - step))

# ---- 5. docker-compose --profile demo ----
step=$(date +%s)
free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
export ERP_SYNC_OPS_PORT ERP_SYNC_SANDBOX_PORT
ERP_SYNC_OPS_PORT=$(free_port)
ERP_SYNC_SANDBOX_PORT=$(free_port)
COMPOSE_UP=1
COMPOSE_DOCKER_CLI_BUILD=0 DOCKER_BUILDKIT=0 compose --profile demo up -d --build >"$LOGS/compose.log" 2>&1 ||
  { tail -20 "$LOGS/compose.log" >&2; fail "docker-compose --profile demo up -d --build"; }
[ "$(docker images -q "$IMAGE")" = "$IMAGE_ID" ] || fail "docker-compose up --build made another image, not the one built above"
ok "compose: up --build found the image built above in the cache ($IMAGE_ID)"
in_compose() { docker ps -q --filter "label=com.docker.compose.project=$NAME" --filter "label=com.docker.compose.service=$1"; }
DEMO_KEY=$(sed -n 's/^CMS_API_KEY=//p' deploy/erp-sync.env.example)
KEY=$DEMO_KEY API=http://127.0.0.1:$ERP_SYNC_SANDBOX_PORT/api/v2
within 90 logged "$(in_compose erp-sync)" '"event":"ready"' || fail "compose: erp-sync ready line (not within 90s)"
within 60 curl -fsS --max-time 5 "http://127.0.0.1:$ERP_SYNC_OPS_PORT/readyz" || fail "compose: /readyz on 127.0.0.1:$ERP_SYNC_OPS_PORT (not within 60s)"
within 60 api /account || fail "compose: the sandbox on 127.0.0.1:$ERP_SYNC_SANDBOX_PORT (not within 60s)"
# docs/operations.md's way to try it: the sample files into the drop folder. The platform then holds
# the file's quantity less the units of imported orders that the ERP has not seen (reservations).
seeded=$(api '/products/stock/list?search=DEMO-0004' | grep -o '"sku":"DEMO-0004"[^}]*' | grep -o '"stock_quantity":[0-9]*')
compose exec -T erp-sync sh -c 'cp /app/config/sample/*.csv /data/erp/' || fail "compose: copying the sample ERP files"
synced() { [ "$(api '/products/stock/list?search=DEMO-0004' | grep -o '"sku":"DEMO-0004"[^}]*' | grep -o '"stock_quantity":[0-9]*')" != "$seeded" ]; }
within 120 synced || fail "compose: the sample stock.csv on the platform (DEMO-0004 still $seeded) (not within 120s)"
ok "compose: the sample stock.csv reached the sandbox (DEMO-0004 ${seeded#*:} -> $(api '/products/stock/list?search=DEMO-0004' | grep -o '"sku":"DEMO-0004"[^}]*' | grep -o '"stock_quantity":[0-9]*' | cut -d: -f2))"
all_healthy() { [ "$(docker ps --filter "label=com.docker.compose.project=$NAME" --filter health=healthy -q | wc -l)" = 3 ]; }
within 90 all_healthy || fail "compose: redis, erp-sync and sandbox not all healthy within 90s ($(docker ps --filter "label=com.docker.compose.project=$NAME" --format '{{.Names}} {{.Status}}' | tr '\n' ';'))"
ok "compose: $(docker ps --filter "label=com.docker.compose.project=$NAME" --format '{{.Names}}: {{.Status}}' | tr '\n' ' ')"
daemon=$(in_compose erp-sync)
stop_started=$(date +%s)
compose --profile demo stop -t "$GRACE" >>"$LOGS/compose.log" 2>&1 || fail "docker-compose stop"
code=$(docker inspect -f '{{.State.ExitCode}}' "$daemon")
[ "$code" = 0 ] || fail "compose: erp-sync exited $code on stop, not 0"
ok "compose: stop in $(($(date +%s) - stop_started))s, erp-sync exit 0"
record "checks (compose)" $(($(date +%s) - step))
