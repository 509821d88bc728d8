# syntax=docker/dockerfile:1
# portcullis: build with every dependency, run with the production ones only, as a non-root user,
# with the SQLite database on a volume. Build with the commit it comes from:
#   docker build --build-arg COMMIT_SHA="$(git rev-parse HEAD)" -t portcullis .
#   docker run -p 3000:3000 -v portcullis-data:/data -e ADMIN_PASSWORD=... portcullis
ARG NODE_VERSION=20.20.2

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary fits this Node.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
ENV CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1
# The whole context first: `npm ci`'s postinstall generates the Prisma client from prisma/ and
# builds the web console from web/, and a dependency is vendored (vendor/).
COPY . .
RUN npm ci --no-audit --no-fund \
  && npm prune --omit=dev --no-audit --no-fund \
  && npm cache clean --force

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG COMMIT_SHA=
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_URL=file:/data/portcullis.db \
    PROVISIONING_PATH=/etc/portcullis/provisioning \
    COMMIT_SHA=${COMMIT_SHA}
WORKDIR /app
# The code stays root's and read-only to the service; only /data is writable by it.
COPY --from=build /app /app
RUN mkdir -p /data /etc/portcullis/provisioning && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# main.ts drains requests in flight on SIGTERM (SHUTDOWN_TIMEOUT_SECONDS, default 10): give
# `docker stop` a longer grace period with --time when raising it.
STOPSIGNAL SIGTERM
# package.json's `start`, word for word (test/operations/dockerfile.test.ts): the server built by
# `npm ci`'s postinstall above (scripts/start.mjs finds it current: same sources, same esbuild)
# and the V8 flags measured for it (issue #20, memory).
CMD ["node", "--v8-pool-size=1", "--max-semi-space-size=8", "--max-old-space-size=1024", "scripts/start.mjs"]
