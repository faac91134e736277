# The publishing service: the ingest API and the built site on one origin (docs/DEPLOY.md).
#   docker build -t redis-benchdb .
#   docker run -d -p 8080:8080 -v benchdb:/data redis-benchdb
# Everything that lasts is on the /data volume: the SQLite file, the site built from it (kept across
# restarts, so a restart over an unchanged database builds nothing), and the online backups. Copy
# /data/backups off the host too: a backup on the same disk does not survive the disk.
# The image is not built in this project's CI (no docker daemon or base images there).
# packages/server/test/dockerfile.test.ts runs this recipe's own steps outside a container instead: the
# context as .dockerignore leaves it, copied to a temp /app; the build stage's pnpm RUN; the CMD with the
# runtime ENV and /data in a temp directory; and the HEALTHCHECK, as written.

FROM node:24-bookworm-slim AS build
# better-sqlite3 13 carries its binaries in the npm package: no compiler is needed.
RUN corepack enable
WORKDIR /app
COPY . .
RUN pnpm install --frozen-lockfile && pnpm -s build

FROM node:24-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
ENV ASTRO_TELEMETRY_DISABLED=1 \
    REDIS_BENCHDB_PNG_CACHE=/data/png-cache
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/api/v1/health').then(r => r.json()).then(h => process.exit(h.ok === true ? 0 : 1), () => process.exit(1))"]
CMD ["node", "packages/server/dist/main.js", "--db", "/data/benchdb.sqlite", "--host", "0.0.0.0", "--port", "8080", "--site-dir", "/data/site", "--backup-dir", "/data/backups"]
