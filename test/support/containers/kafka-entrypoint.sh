#!/usr/bin/env bash
# The entrypoint of svc-local/kafka (kafka.Dockerfile): writes the broker's config from the
# environment, formats the data dir on the first start only (a restarted container keeps its data
# and cluster id), then runs the broker as PID 1 so `docker stop` (SIGTERM) shuts it down cleanly.
#   KAFKA_ADVERTISED  host:port the clients are told to use (required: the host's end of the mapping
#                     of 9092, e.g. 127.0.0.1:<free port>)
#   KAFKA_HEAP        JVM heap (default 512m)
#   KAFKA_CLUSTER_ID  the KRaft cluster id of a first start (default: 16 random bytes, base64url)
# Listeners: CLIENTS on 0.0.0.0:9092 (advertised KAFKA_ADVERTISED), BROKER on 127.0.0.1:9094 for the
# broker itself (the advertised address is not reachable from inside the container), CONTROLLER on
# 127.0.0.1:9093.
set -euo pipefail
advertised="${KAFKA_ADVERTISED:?KAFKA_ADVERTISED is not set: host:port of the client listener}"
heap="${KAFKA_HEAP:-512m}"
conf=/etc/kafka
data=/var/lib/kafka/data
mkdir -p "$conf" "$data"
cat >"$conf/server.properties" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
listeners=CLIENTS://0.0.0.0:9092,BROKER://127.0.0.1:9094,CONTROLLER://127.0.0.1:9093
advertised.listeners=CLIENTS://$advertised,BROKER://127.0.0.1:9094
controller.listener.names=CONTROLLER
inter.broker.listener.name=BROKER
listener.security.protocol.map=CLIENTS:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$data
num.partitions=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPERTIES
cat >"$conf/log4j2.xml" <<'LOG4J'
<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders><Console name="out" target="SYSTEM_OUT"><PatternLayout pattern="[%d] %p %m (%c)%n"/></Console></Appenders>
  <Loggers><Root level="WARN"><AppenderRef ref="out"/></Root>
    <Logger name="kafka.server.KafkaRaftServer" level="INFO"/><Logger name="kafka.server.BrokerServer" level="INFO"/></Loggers>
</Configuration>
LOG4J
java=(java "-Xms256m" "-Xmx$heap" -XX:+UseSerialGC "-Dlog4j2.configurationFile=$conf/log4j2.xml" -cp '/opt/kafka/libs/*')
if [[ ! -s "$data/meta.properties" ]]; then
  # A KRaft cluster id: 16 random bytes, base64url without padding. One in 64 begins with '-', which
  # `-t <id>` would parse as an option (the format failed, the container exited and the broker
  # never started: CI of stop 35), hence --cluster-id=<id> in one argument.
  id="${KAFKA_CLUSTER_ID:-$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')}"
  "${java[@]}" kafka.tools.StorageTool format "--cluster-id=$id" -c "$conf/server.properties"
fi
exec "${java[@]}" kafka.Kafka "$conf/server.properties"
