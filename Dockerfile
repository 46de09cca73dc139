# syntax=docker/dockerfile:1
# erp-sync image. Default: the daemon, `erp-sync start` (needs Redis: REDIS_URL or redis.url).
# `docker run IMAGE loop` is the Redis-less alternative (run-once every ERP_SYNC_INTERVAL s), and
# `docker run IMAGE status` (check, sync, jobs, sandbox ...) any other sub-command.
# See docs/operations.md.
#
# NODE_VERSION is the project's Node.js, the one in .nvmrc (CI and developers run the same; see
# docs/operations.md "Node.js version").
ARG NODE_VERSION=24.21.0
ARG NODE_IMAGE=node:${NODE_VERSION}-bookworm-slim

# ---- build: compile TypeScript, then keep only the production dependencies ----
FROM ${NODE_IMAGE} AS build
# better-sqlite3 falls back to compiling its native module (node-gyp) when no prebuilt binary
# can be downloaded.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# --omit=optional as well: typescript is "devOptional" (an optional peer of valibot, which Bull
# Board uses), so --omit=dev alone would ship it. The optional msgpackr-extract is only a faster
# native codec that msgpackr replaces with plain JavaScript.
RUN npm run build && npm prune --omit=dev --omit=optional --no-audit --no-fund
COPY bin ./bin
COPY config/sample ./config/sample

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
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
# The layout the compiled code expects: dist/version.js reads ../package.json and
# dist/cli/demoCommand.js reads ../../config/sample.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/config/sample ./config/sample
COPY --chmod=0755 deploy/docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
COPY --chmod=0755 deploy/healthcheck.sh /usr/local/bin/erp-sync-healthcheck
COPY --chmod=0644 deploy/config.docker.yaml /etc/erp-sync/config.yaml
# bin/erp-sync.js runs dist/cli/main.js: the image has no src/ (bin/erp-sync.js explains the rule).
RUN ln -s /app/bin/erp-sync.js /usr/local/bin/erp-sync
USER erp-sync
WORKDIR /data
VOLUME ["/data"]
# 9464: the ops server (/healthz, /readyz, /metrics, /queues); 8787: `sandbox --host 0.0.0.0`.
EXPOSE 9464 8787
# The daemon: /healthz answers 200 (alive, event loop responsive). The loop: a run-once finished
# with exit code 0 recently. The start period covers a long first run of the loop.
HEALTHCHECK --interval=30s --timeout=10s --start-period=10m --retries=3 \
  CMD ["/usr/local/bin/erp-sync-healthcheck"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/docker-entrypoint.sh"]
CMD ["start"]
