#!/usr/bin/env bash
# Fetches the jars of a one-node Apache Kafka broker (KRaft) from Maven Central into
# ~/.cache/svc-kafka/<version>/libs, once: images.sh --connectors copies them into svc-local/kafka,
# the broker image of the connectors' tests (test/connectors/README.md).
# A lock file keeps two fetches (parallel test runs) from writing the same directory.
set -euo pipefail
VERSION="${SVC_KAFKA_VERSION:-4.1.0}"
CACHE="${SVC_KAFKA_CACHE:-$HOME/.cache/svc-kafka}/$VERSION"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [ -f "$CACHE/libs/.complete" ]; then echo "$CACHE/libs"; exit 0; fi
for tool in java mvn; do
  if ! command -v "$tool" >/dev/null; then
    echo "kafka-fetch: $tool is missing (install openjdk-17-jre-headless and maven; .ci/run does)" >&2
    exit 1
  fi
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>svc.test</groupId><artifactId>kafka-broker</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-server</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>2.24.3</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>2.24.3</version></dependency>
  </dependencies>
</project>
POM
rm -rf "$CACHE/libs"
mvn -q -B -f "$work/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$CACHE/libs" >&2
touch "$CACHE/libs/.complete"
echo "$CACHE/libs"
