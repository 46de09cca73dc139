# syntax=docker/dockerfile:1
# erp-sync image: `erp-sync run-once` in a loop (deploy/docker-entrypoint.sh), or any erp-sync
# sub-command (`docker run IMAGE status`). See docs/operations.md.
ARG NODE_IMAGE=node:20-bookworm-slim

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
  org.opencontainers.image.description="Keeps an ERP and a Commerce Management Service account (API v2) in step: erp-sync run-once in a loop" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.licenses="MIT" \
  org.opencontainers.image.documentation="docs/operations.md"
# The store path comes from the config file (/data/erp-sync.db), not from ERP_SYNC_STORE: that
# variable would also redirect `demo` into the production store.
ENV NODE_ENV=production \
  ERP_SYNC_CONFIG=/etc/erp-sync/config.yaml \
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
# bin/erp-sync.js runs dist/cli/main.js (tsx, a dev dependency, is only its fallback without dist).
RUN ln -s /app/bin/erp-sync.js /usr/local/bin/erp-sync
USER erp-sync
WORKDIR /data
VOLUME ["/data"]
# Only used by `sandbox --host 0.0.0.0 --port 8787`; the loop listens on nothing.
EXPOSE 8787
# Healthy while a run-once finished with exit code 0 in the last ERP_SYNC_HEALTH_MAX_AGE seconds
# (default 5 x ERP_SYNC_INTERVAL + 300). The start period covers a long first run.
HEALTHCHECK --interval=30s --timeout=10s --start-period=10m --retries=3 \
  CMD ["/usr/local/bin/erp-sync-healthcheck"]
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["loop"]
