# Stowage: a build stage compiles it and drops the development dependencies; the runtime stage
# runs it as the unprivileged `node` user. test/production-install.test.ts runs these same steps.
# Node 24 is the newest LTS line the suite passes on (CI runs 20, 22 and 24).

FROM node:24-bookworm-slim AS build
# better-sqlite3 and bcrypt build from source where no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3 bcrypt
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATABASE_URL=sqlite:/data/stowage.db STORAGE_DIR=/data/objects
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/bin ./bin
RUN ln -s /app/bin/stowage.js /usr/local/bin/stowage && mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# Liveness: the process answers. Point a load balancer's readiness check at /health instead.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health?probe=live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/server.js"]
