# syntax=docker/dockerfile:1
# Multi-stage: compile and type-check with every dependency installed, then ship the compiled
# service (dist/) with production dependencies only, run as the unprivileged `node` user.
# No TypeScript runner (tsx) at run time.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` would build before the sources are copied; the tree's only install
# scripts (esbuild's, @scarf/scarf's) are denied in package.json anyway.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY public ./public
RUN npm run build && npm run typecheck

FROM node:20-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
# Speech: Debian's espeak-ng and lame, which TTS_ENGINE=auto (the default) runs instead of their
# slower WebAssembly builds; tini as PID 1, which forwards `docker stop`'s SIGTERM to node (its
# direct child) and reaps zombies. Installed before anything is copied, so the layer stays cached.
RUN apt-get update \
  && apt-get install -y --no-install-recommends espeak-ng lame tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 LOG_FORMAT=json
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/dist ./dist
COPY public ./public
USER node
EXPOSE 8080
# With TLS_CERT_FILE the service speaks HTTPS; its certificate names the public host, not 127.0.0.1.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
  CMD NODE_TLS_REJECT_UNAUTHORIZED=0 node --no-warnings -e "fetch((process.env.TLS_CERT_FILE?'https':'http')+'://127.0.0.1:'+(process.env.PORT||8080)+'/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
# node itself, never `npm start`: npm would stand between tini and the service.
CMD ["node", "dist/bootstrap/main.js"]
