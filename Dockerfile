# erp-sync image. Default: the daemon, `erp-sync start` (needs Redis: REDIS_URL or redis.url).
# `docker run IMAGE loop` is the Redis-less alternative (run-once every ERP_SYNC_INTERVAL s), and
# `docker run IMAGE status` (check, sync, jobs, sandbox ...) any other sub-command.
# See docs/operations.md.
#
# Builds with BuildKit and with the legacy builder (docker-compose 1.29 uses that one): plain COPY
# and RUN only, and no `# syntax=` line, which would make every build fetch a frontend image from
# a registry. The only images it needs are the two below; without a registry,
# deploy/build-base-images.sh makes them locally under these names.
#
# NODE_VERSION is the project's Node.js, the one in .nvmrc (CI and developers run the same; see
# docs/operations.md "Node.js version"; test/image/smoke.sh refuses to build when they differ).
ARG NODE_VERSION=24.21.0
ARG NODE_IMAGE=node:${NODE_VERSION}-bookworm-slim
# The runtime stage: Debian without Node, npm, headers or compilers; node comes from the build stage.
ARG DEBIAN_IMAGE=debian:bookworm-slim

# ---- build: compile TypeScript, then keep only what the runtime loads ----
FROM ${NODE_IMAGE} AS build
# The runtime stage copies this stage's node: without its symbol table and debug information (18
# of its 127 MB; native modules link against its dynamic symbols, which stay). Everything below, the
# native module's build included, runs on the stripped binary.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/* \
  && strip /usr/local/bin/node \
  && node --version
# better-sqlite3 has a binding.gyp, so npm runs `node-gyp rebuild` at install: gyp (python3) and
# make run even when the package's own binary fits this platform (linux x64 and arm64: then
# nothing compiles), and on any other platform g++ compiles SQLite. Either way node-gyp wants the
# Node headers, which it downloads from nodejs.org unless npm_config_nodedir names them: a build
# host may reach only the npm registry, and the node image carries them in /usr/local/include/node.
ENV npm_config_nodedir=/usr/local
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# The production dependencies, in /prod, before the sources come in: a change to src/ reuses this
# layer. --omit=optional as well: typescript is "devOptional" (an optional peer of valibot, which
# Bull Board uses), so --omit=dev alone would ship it; the optional msgpackr-extract is only a
# faster native codec that msgpackr replaces with plain JavaScript.
# Then what node never loads (about 100 MB): source maps, type declarations, TypeScript sources,
# Markdown, the test, example, benchmark and docs folders of each package, better-sqlite3's
# binaries for other platforms and its SQLite sources (only the module it loads here stays), and
# @azure/msal-browser, which only @azure/identity's browser build imports (tedious ->
# @azure/identity). Every production dependency must still load after that, and the store's
# native module open a database.
RUN mkdir /prod && cp -a package.json package-lock.json node_modules /prod/ \
  && cd /prod \
  && npm prune --omit=dev --omit=optional --no-audit --no-fund \
  && find node_modules -type f \( -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \
  -o -iname '*.md' -o -iname '*.markdown' \) -delete \
  && find node_modules -regextype posix-extended -type d \
  -regex '(.*/)?node_modules/(@[^/]+/)?[^/@][^/]*/(test|tests|__tests__|examples?|benchmarks?|docs|\.github)' \
  -prune -exec rm -rf {} + \
  && rm -rf node_modules/@types node_modules/@azure/msal-browser \
  && (cd node_modules/better-sqlite3 \
  && used=$(node -p "require('./lib/binding.js').getBinding(); \
  Object.keys(require.cache).find((file) => file.endsWith('.node'))") \
  && rm -rf deps src \
  && find . -type f \( -name '*.node' -o -path './build/*' \) -not -samefile "$used" -delete \
  && find . -type d -empty -delete) \
  && node --input-type=module -e "import { readFileSync } from 'node:fs'; \
  const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8')); \
  for (const name of Object.keys(dependencies)) await import(name); \
  const { default: Database } = await import('better-sqlite3'); \
  new Database(':memory:').prepare('select 1').get();"
COPY tsconfig.json ./
COPY dev/buildDist.ts dev/projectPaths.ts ./dev/
COPY src ./src
# dist/ is an esbuild bundle of src/ (dev/buildDist.ts says why: the CLI's start). No source maps:
# src/ is not in the image, and node runs without --enable-source-maps.
RUN npm run build -- --no-source-maps

# ---- runtime ----
FROM ${DEBIAN_IMAGE} AS runtime
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="erp-sync" \
  org.opencontainers.image.description="Keeps an ERP and a Commerce Management Service account (API v2) in step: the erp-sync daemon" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.licenses="MIT" \
  org.opencontainers.image.documentation="docs/operations.md"
# tini is PID 1: it forwards SIGTERM/SIGINT to erp-sync and reaps zombies (node is no init).
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
# Only the node binary of the node image: no npm, corepack, headers or compilers at runtime.
COPY --from=build /usr/local/bin/node /usr/local/bin/node
# The store path comes from the config file (/data/erp-sync.db), not from ERP_SYNC_STORE: that
# variable would also redirect `demo` into the production store.
ENV NODE_ENV=production \
  ERP_SYNC_CONFIG=/etc/erp-sync/config.yaml \
  ERP_SYNC_HEALTH_URL=http://127.0.0.1:9464/healthz \
  ERP_SYNC_INTERVAL=60 \
  ERP_SYNC_FATAL_BACKOFF=300 \
  ERP_SYNC_HEARTBEAT=/tmp/erp-sync.heartbeat
RUN groupadd --system --gid 10001 erp-sync \
  && useradd --system --uid 10001 --gid erp-sync --home-dir /data --shell /usr/sbin/nologin erp-sync \
  && mkdir -p /data/erp \
  && chown -R erp-sync:erp-sync /data
WORKDIR /app
# The layout the bundle expects (dist/ is flat): it reads ../package.json (the version) and
# ../config/sample (the demo) from dist/. What changes most often comes last.
COPY --from=build /prod/node_modules ./node_modules
COPY package.json ./package.json
COPY config/sample ./config/sample
COPY deploy/docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
COPY deploy/healthcheck.sh /usr/local/bin/erp-sync-healthcheck
COPY deploy/config.docker.yaml /etc/erp-sync/config.yaml
# Modes set here, not by COPY --chmod (BuildKit only). bin/erp-sync.js runs dist/cli.cjs: the
# image has no src/ (bin/erp-sync.js explains the rule).
RUN chmod 0755 /usr/local/bin/docker-entrypoint.sh /usr/local/bin/erp-sync-healthcheck \
  && chmod 0644 /etc/erp-sync/config.yaml \
  && ln -s /app/bin/erp-sync.js /usr/local/bin/erp-sync \
  && node --version
COPY bin ./bin
COPY --from=build /app/dist ./dist
USER erp-sync
WORKDIR /data
VOLUME ["/data"]
# 9464: the ops server (/healthz, /readyz, /metrics, /queues); 8787: `sandbox --host 0.0.0.0`.
EXPOSE 9464 8787
# One script for every way the image runs (deploy/healthcheck.sh): the daemon answers /healthz,
# the loop finished a run-once recently, the sandbox answers HTTP. The start period covers a long
# first run of the loop.
HEALTHCHECK --interval=30s --timeout=10s --start-period=10m --retries=3 \
  CMD ["/usr/local/bin/erp-sync-healthcheck"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/docker-entrypoint.sh"]
CMD ["start"]
