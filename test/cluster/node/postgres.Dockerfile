# The local stand-in for the chart's postgres image (postgres:15.13-bookworm cannot be pulled here):
# the Debian base built by images.sh and Debian's own postgresql-15, with an entrypoint that does what
# the official image's does for what the chart uses (test/chart/postgres-image.sh, also the node
# agent's stand-in). Context: a directory with `entrypoint.sh`.
ARG BASE
FROM ${BASE}
# As in the official image, user and group postgres are 999, the ids the chart's securityContext runs
# as: made before the package would pick others. initdb refuses a uid with no passwd entry.
RUN groupadd --system --gid 999 postgres \
  && useradd --system --gid postgres --uid 999 --home-dir /var/lib/postgresql --shell /bin/bash postgres \
  && mkdir -p /var/lib/postgresql && chown postgres:postgres /var/lib/postgresql
# postgresql-common first, told not to create the package's default cluster: the entrypoint makes
# the one cluster in PGDATA.
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-common \
  && sed -ri 's/#(create_main_cluster) .*$/\1 = false/' /etc/postgresql-common/createcluster.conf \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
  && rm -rf /var/lib/apt/lists/*
# The server's own binaries first (pg_isready of the chart's probe without Debian's perl wrapper);
# listen on every address of the pod, as the official image does.
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  POSTGRES_LISTEN=*
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
