# The API and the worker share one image; docker-compose.yml picks the command per service.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# postinstall applies patches/ (a fix of the MongoDB driver's reconnection; README "Database outages").
COPY patches ./patches
COPY tools/apply-patches.js ./tools/
RUN npm ci
# Sources are copied by name (not `COPY . .`) so a local node_modules, .data or .tools never enters the image.
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY workers ./workers
COPY bench ./bench
# The web app (web/, Preact + Vite) is built into dist/web by tools/build-web.js; Vite and Preact are dev
# dependencies, used here before the prune.
COPY web ./web
COPY tools/build-web.js ./tools/
# The CI client bundle (dist/cli/scanner.mjs, served at GET /cli/scanner.mjs) is made by esbuild during the build.
COPY tools/build-client.js ./tools/
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
ENV NODE_ENV=production
# Outside a container the API binds loopback by default; inside one, loopback cannot be reached through a published
# port, so the image binds all of the container's interfaces (what is exposed is decided by `ports:` / `-p`).
ENV HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
# The worker bundles dist/workflows with webpack at start, so the compiled workflow sources ship too.
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The key that seals webhook secrets (storage/secrets.ts) lives here unless SECRETS_KEY is set: mount one volume at
# /secrets in the API and the worker (docker-compose.yml does), so that both read the same key.
RUN mkdir -p /secrets && chown node:node /secrets
ENV SECRETS_KEY_FILE=/secrets/secrets.key
USER node
EXPOSE 8080
CMD ["node", "dist/src/main.js", "api"]
