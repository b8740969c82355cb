# The local stand-in for node:22-slim (which cannot be pulled here): the Debian base built by
# images.sh, the project's own Node binary and npm, and the `node` user (uid 1000) the public image
# has and the svc Dockerfile and the chart run as. Context: a directory with `node`, `npm/` and `ca/`.
# ca/ holds the build machine's own CA certificates (/usr/local/share/ca-certificates): its way out
# to the registries re-signs TLS, so `npm ci` in the svc build trusts only with them. Node reads
# only its bundled roots unless told, hence NODE_EXTRA_CA_CERTS, as on the build machine.
ARG BASE
FROM ${BASE}
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca /usr/local/share/ca-certificates/
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
RUN update-ca-certificates \
  && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && groupadd --gid 1000 node \
  && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
  && node --version && npm --version
CMD ["node"]
