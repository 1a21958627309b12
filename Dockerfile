# The MEL service's image: `docker build -t mel .`, or `docker compose up` with compose.yaml beside it.
# See docs/operations.md, "Deploy with containers". No container engine runs where this project is
# developed: scripts/container-recipe.mjs performs these stages outside a container, reading this file
# (test/container-recipe.test.ts), so the recipe and its proof cannot drift apart unnoticed.

# Build: every dependency (esbuild among the dev ones), src/ compiled into dist/, then the dev ones removed.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# The dependencies first, in a layer of their own that a change to src/ does not rebuild. No install
# scripts: `prepare` (the root package's build) needs src/, copied only below, and no dependency needs
# its own (bcrypt ships prebuilt binaries, esbuild's comes in an optional package).
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# Runtime: plain node on dist/ (no tsx, no compiler), production dependencies only, not root.
FROM node:20-bookworm-slim AS runtime
# tini as PID 1: passes SIGTERM and SIGINT on to node (a `docker stop` reaches the service's graceful
# shutdown) and reaps zombies.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
# DATA_DIR holds the uploaded files (DATA_DIR/files) and the .eml outbox without SMTP: mount a volume there.
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
# package.json is read at run time (the version in /health); owned by root, read-only to the service.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
# dist/ holds the migrations (dist/db/migrations, applied at start) and the page assets beside the code.
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready', { signal: AbortSignal.timeout(4000) }).then((res) => process.exit(res.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--enable-source-maps", "dist/server.js"]
