# The gateway's image: the compiled gateway and its production dependencies only, run as the
# unprivileged user `node`, with a health check on /health.
#   docker build -t mcp-agent-gateway .
#   docker run --rm -p 127.0.0.1:4000:4000 -e GATEWAY_KEY=… -e OPENAI_API_KEY=… mcp-agent-gateway
# or `docker compose up` (compose.yaml). The config is /app/mcp.config.json: deploy/mcp.config.json
# unless you mount your own over it. test/deploy/dockerfile.e2e.test.ts performs these steps
# without Docker (the RUN lines as written) and checks the result answers /health.

# Node 22 (LTS): Node 20 reached its end of life in April 2026, and the gateway spent 10–19% less
# CPU per request on 22 in two whole runs of the bench (docs/performance.md). CI runs the whole
# suite on Node 22 too (`npm run test:node22`), and test/deploy/dockerfile.e2e.test.ts runs this
# image's command on it.

# Build stage: the production dependencies, plus the TypeScript compiler and Node's types at the
# versions package.json pins, in .tools/ (not the whole development set: tests, clients, browsers).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional too: @google/genai (whose types the Gemini adapter compiles against) declares
# the MCP SDK 1.x as an optional peer, which would otherwise bring it and its Express stack (78
# packages) into the image unused. The production tree has no optional dependency of its own.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund
RUN npm install --prefix .tools --ignore-scripts --no-audit --no-fund \
      "typescript@$(node -p "require('./package.json').devDependencies.typescript")" \
      "@types/node@$(node -p "require('./package.json').devDependencies['@types/node']")"
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN node .tools/node_modules/typescript/bin/tsc -p tsconfig.build.json --typeRoots .tools/node_modules/@types

# Runtime stage: package.json, the production node_modules, dist/ and bin/; no sources, no tools.
FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY deploy/mcp.config.json ./mcp.config.json
USER node
EXPOSE 4000
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:4000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/mcp-gateway.js", "serve"]
