# syntax=docker/dockerfile:1
#
# mcp-toolkit as a container: the streamable HTTP server on port 8000, path /mcp.
# Node runs the TypeScript sources directly (type stripping), so there is no build step:
# the image is the repository's runtime files plus production dependencies.
#
#   docker build -t mcp-toolkit .
#   docker run --rm -p 8000:8000 -e MCP_AUTH=api_key -e MCP_API_KEYS=me:$(openssl rand -hex 32) mcp-toolkit
#
# Without MCP_AUTH the server refuses to start on 0.0.0.0 (exit 2): docs/deployment.md shows
# the local try that allows it (MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true, published on loopback).
#
# `npm run image` (scripts/image.ts) builds this file unchanged with docker or podman, and
# `npm run image -- --run` starts it; test/deploy/image-built.test.ts runs the built image;
# test/deploy/image.test.ts performs the same install and start on a fresh copy of the
# repository; test/deploy/dockerfile.test.ts checks the base, user, port, health check and
# every ENV name against the settings schema.

# --- deps: production dependencies only, from the lockfile -------------------------------
# Pinned to an exact Node 24 LTS patch so a rebuild gets the runtime the tests ran on.
FROM node:24.22.3-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=dev: a runtime import of a devDependency fails in this image (and in the test).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime -----------------------------------------------------------------------------
FROM node:24.22.3-slim AS runtime
WORKDIR /app
# Only what runs. The files stay owned by root, so the server (uid 1000) cannot change
# its own code or dependencies.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
# The plugins of the build context: .dockerignore keeps the conformance suite's fixture out.
COPY plugins ./plugins
# The documented OpenTelemetry preload (docs/observability.md): NODE_OPTIONS="--import
# ./examples/tracing.ts" starts the Node SDK with the http and undici instrumentations.
COPY examples/tracing.ts ./examples/tracing.ts
# The filesystem plugin's default root, ./workspace of the working directory: the one place
# the server writes. No setting names it, so an image run without that plugin carries no
# plugin setting. Mount a volume here to keep files across restarts (Kubernetes mounts an
# emptyDir or a PVC, Fly.io a volume).
RUN mkdir -p /app/workspace && chown 1000:1000 /app/workspace

# HTTP on every interface of the container; the port stays the schema's default (8000).
# MCP_AUTH stays `none` unless the run sets it, and `none` beyond loopback stops start-up
# unless MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true: the image never serves anyone by default.
# Logs are JSON lines on stderr whatever the terminal, for log shippers. Node's compile cache
# stays off: it would write to /tmp, outside the volumes (start-up takes about 0.3 s longer).
ENV MCP_TRANSPORT=http \
    MCP_HTTP_HOST=0.0.0.0 \
    MCP_LOG_FORMAT=json \
    NODE_DISABLE_COMPILE_CACHE=1

# The `node` user of the base image, by number: Kubernetes' runAsNonRoot can only verify
# a numeric user.
USER 1000:1000
EXPOSE 8000

# The slim image has no curl: node's own fetch, with the port the server really uses.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.MCP_HTTP_PORT||8000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# The server handles SIGTERM itself, as PID 1 too: it stops accepting, lets in-flight calls
# finish within MCP_SHUTDOWN_TIMEOUT_MS, closes streams, flushes spans and exits 0. Give the
# platform's stop timeout more than that (`docker stop -t 30`, Fly's kill_timeout,
# Kubernetes' terminationGracePeriodSeconds).
STOPSIGNAL SIGTERM
CMD ["node", "bin/mcp-toolkit.js", "run"]
