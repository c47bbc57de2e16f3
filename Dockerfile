# One image for the API and the worker (the compose file picks the command).
# Node 24, a supported LTS (Node 20 reached end of life in April 2026); the code also runs on Node 20, and CI runs
# the unit tests on Node 24 (.ci/run).
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
EXPOSE 3000
CMD ["node", "--import", "tsx", "api/main.ts"]
