# svc-local/kafka: a one-node Apache Kafka broker (KRaft, broker and controller in one JVM) for the
# connectors' tests, built by test/cluster/node/images.sh (no registry can be reached here): the
# Debian base it builds, Debian's Java 17 runtime, the broker's jars from Maven Central that
# test/support/kafka-fetch.sh caches (context, a tar images.sh pipes in: this file, `libs/` and
# kafka-entrypoint.sh), and kafka-entrypoint.sh, which writes the
# broker's config from the environment. The tests start it through testcontainers (../kafka.ts).
ARG BASE
FROM ${BASE}
RUN mkdir -p /usr/share/man/man1 \
  && apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless \
  && rm -rf /var/lib/apt/lists/*
COPY libs/ /opt/kafka/libs/
COPY kafka-entrypoint.sh /usr/local/bin/kafka-entrypoint.sh
# 9092: the clients' listener (advertised as KAFKA_ADVERTISED, the host's end of the port mapping).
EXPOSE 9092
ENTRYPOINT ["/usr/local/bin/kafka-entrypoint.sh"]
