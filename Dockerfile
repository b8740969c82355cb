# syntax=docker/dockerfile:1
# The svc image: one image for every component (svc api-server | compiler-server | runner | manager)
# and for pipeline pods (svc pipeline); the entrypoint is `svc`, the subcommand comes as args.
#
# Base: node:22-slim (Debian bookworm), pinned by digest. The digest is the one public Dockerfiles
# record for node:22-slim with Node.js v22.22.0 (2026-02-26); it was not re-checked against the
# registry from here (no Docker engine or registry client on the build machine). Bump tag and digest
# together, e.g. `docker buildx imagetools inspect node:22-slim`.
# The project's own Node (the `node` devDependency) is used only to build; the image runs on the base's.
ARG NODE_IMAGE=node:22-slim@sha256:dd9d21971ec4395903fa6143c2b9267d048ae01ca6d3ea96f16cb30df6187d94

# ---- build: every dependency, compile TypeScript, then drop the dev dependencies ----
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# The web console (web/, built by Vite into dist/web): its libraries are devDependencies, bundled
# into dist/web at build time, so the prune below drops them and the runtime image carries the bundle only.
COPY web ./web
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund \
  && test ! -e node_modules/node

# ---- run: production dependencies and the compiled program only, as a non-root user ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    # Listen on every interface of the pod (the program's own default is 127.0.0.1).
    SVC_BIND_ADDRESS=0.0.0.0 \
    SVC_DATA_DIR=/data \
    # glibc's malloc gives every freed block of 128 KiB or more back to the system (src/heap/allocator.ts:
    # ALLOCATOR_ENV, which the local runner passes to its pipelines; a test keeps the two equal).
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# /data is the default data dir (the chart mounts a volume there); uid 1000 is the base image's `node`
# user, the uid the chart and the pipeline template run as.
RUN mkdir -p /data && chown 1000:1000 /data
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["--help"]
