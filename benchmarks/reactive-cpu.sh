#!/usr/bin/env bash
# Reactive stacks on Reactor Netty (benchmarks/reactive, its own class path: Spring Boot 3.5 and
# Spring Cloud Gateway 4.3 under their own dependency management), each part in a JVM of its own,
# the load on threads of its own in the same JVM, in interleaved rounds:
#   WebFluxCpu:          the SluiceWebFilter's own CPU per request on a real Reactor Netty server;
#   GatewayCpu filter:   the Sluice gateway filter's, on a real gateway route to a loopback backend;
#     both timed in the filter stage's thread CPU (the stage's subscription up to the rest of the
#     chain, and the rest's completion up to the stage's), minus an empty stage, over the server's
#     CPU per request without the filter; the whole server's CPU with minus without is printed too;
#     WebFluxCpu also times each response head's encoding at Reactor Netty's HTTP codec (EncodeProbe):
#     the stage plus the encoding of the fields it added is its "with the fields' encoding" row;
#   GatewayCpu redis:    on one redis-server, a Redis token bucket: the Sluice filter and
#     SluiceRateLimiter against the gateway's RedisRateLimiter, CPU per request of the gateway JVM
#     and of redis-server, and throughput, at 1 and 16 concurrent clients (skipped without redis-server).
#
# usage: benchmarks/reactive-cpu.sh
#   environment: NOBUILD=1 reuses benchmarks/reactive/target; MVN_FLAGS (default -o);
#                WEBFLUX_ARGS="rounds requests connections warm-up" (default "30 5000 4 40000");
#                GATEWAY_ARGS="rounds requests connections" (default "30 4000 4");
#                REDIS_ARGS="rounds requests clients" (default "15 2000 1,16")
# Output: benchmarks/target/reactive-cpu.md (the report), reactive-cpu.txt (target rows for
# report.Summary). Not part of mvn verify. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
R=benchmarks/reactive/target
if [ "${NOBUILD:-0}" != 1 ] || [ ! -f "$R/classpath.txt" ]; then
  # shellcheck disable=SC2086
  mvn ${MVN_FLAGS--o} -B -q -pl benchmarks/reactive -am package -DskipTests
fi
CP="$R/classes:$(cat "$R/classpath.txt")"
mkdir -p benchmarks/target
OUT=benchmarks/target/reactive-cpu.md
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT"
# shellcheck disable=SC2086
java -cp "$CP" io.github.sluice.bench.reactive.WebFluxCpu ${WEBFLUX_ARGS:-30 5000 4 40000} 2>>benchmarks/target/reactive-cpu.log | tee -a "$OUT"
# shellcheck disable=SC2086
java -cp "$CP" io.github.sluice.bench.reactive.GatewayCpu filter ${GATEWAY_ARGS:-30 4000 4} 2>>benchmarks/target/reactive-cpu.log | tee -a "$OUT"
if command -v redis-server >/dev/null; then
  # shellcheck disable=SC2086
  java -cp "$CP" io.github.sluice.bench.reactive.GatewayCpu redis ${REDIS_ARGS:-15 2000 1,16} 2>>benchmarks/target/reactive-cpu.log | tee -a "$OUT"
else
  echo "note: redis-server not found, the RedisRateLimiter comparison was not run" | tee -a "$OUT"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT"
grep '^http-target ' "$OUT" > benchmarks/target/reactive-cpu.txt || true
