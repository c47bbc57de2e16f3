# One image for the API and the worker (the compose file picks the command).
# Node 24, a supported LTS (Node 20 reached end of life in April 2026); the code also runs on Node 20, and CI runs
# the unit tests on Node 24 (.ci/run).

# Build stage: compile to JavaScript and bundle the workflows ahead of time (`npm run build` -> dist/).
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime: production dependencies and dist/ (which mirrors the source tree: api/main.js, worker/main.js,
# db/migrations, workflow-bundle.js). Plain `node`: no TypeScript loader, no webpack at worker start.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /src/dist/ ./
ENV NODE_ENV=production
EXPOSE 3000
CMD ["node", "api/main.js"]
