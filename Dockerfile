# syntax=docker/dockerfile:1
# Multi-stage: check the types with every dependency, then ship production dependencies only,
# running as the unprivileged `node` user. The service runs its TypeScript through tsx (a
# production dependency), so there is no separate build output to keep in step.

FROM node:20-bookworm-slim AS check
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
RUN npm run typecheck

FROM node:20-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 LOG_FORMAT=json
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=check /app/package.json /app/tsconfig.json ./
COPY --from=check /app/src ./src
COPY public ./public
USER node
EXPOSE 8080
# With TLS_CERT_FILE the service speaks HTTPS; its certificate names the public host, not 127.0.0.1.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
  CMD NODE_TLS_REJECT_UNAUTHORIZED=0 node --no-warnings -e "fetch((process.env.TLS_CERT_FILE?'https':'http')+'://127.0.0.1:'+(process.env.PORT||8080)+'/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "src/bootstrap/main.ts"]
