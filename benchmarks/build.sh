#!/usr/bin/env bash
# Builds benchmarks/target/benchmarks.jar (JMH, the peers, Jetty, Tomcat, Lettuce in one uber-jar).
# Offline by default (MVN_FLAGS=-o); set MVN_FLAGS= to let Maven download what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn ${MVN_FLAGS--o} -B -q -pl benchmarks -am -Pbench package -DskipTests \
  | grep -v 'overlapping\|^\[WARNING\]   - \|^\[WARNING\] *$' || true
test -f benchmarks/target/benchmarks.jar
