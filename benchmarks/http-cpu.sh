#!/usr/bin/env bash
# HTTP overhead as the server's CPU time per request, which a shared 2-core machine can measure
# (throughput with wrk varies there by more than the 3 % being tested): the seven servers of
# http.sh (Jetty 12: no filter, Sluice, QoSHandler, DoSHandler; Tomcat 10.1: no filter, Sluice,
# RateLimitFilter) each in its own JVM, warmed up until their JIT compilers are quiet, then
# interleaved rounds of a fixed number of requests at a fixed rate below saturation; the server's
# CPU time (its threads' from /proc, the JIT compilers left out) is read before and after each.
# Prints CPU microseconds per request (median and min-max over the rounds), the overhead of each
# limiter against the same server's no-filter figure of the same round, and p99 latency; those
# end-to-end figures are noisier than the 3 % target, so the verdicts come from FilterCpu, run
# after them: each limiter's own CPU per request measured in-process, over the no-filter servers'
# CPU per request just measured (benchmarks/target/filter-cpu.md, filter-cpu.txt).
#
# usage: benchmarks/http-cpu.sh [rate/s, default 2000] [requests per measurement, 10000]
#                               [rounds, 5] [warm-up batch, 30000] [connections, 4]
#   environment: NOBUILD=1 reuses benchmarks/target/benchmarks.jar
# Not part of mvn verify; no test depends on its figures. Loopback only, no wrk needed.
# Output: benchmarks/target/http-cpu-<time>.tsv (per round), http-cpu.txt (target rows for
# report.Summary), http-cpu.md (the report).
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=benchmarks/target/benchmarks.jar
[ "${NOBUILD:-0}" = 1 ] && [ -f "$JAR" ] || benchmarks/build.sh
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
java -cp "$JAR" io.github.sluice.bench.http.CpuPerRequest "$@" | tee benchmarks/target/http-cpu.md
# The verdicts by composition: each limiter's own CPU per request in-process, over the no-filter
# servers' figures just measured (FILTER=0 skips it).
if [ "${FILTER:-1}" = 1 ]; then
  java -cp "$JAR" io.github.sluice.bench.http.FilterCpu "${FILTER_ROUNDS:-15}" | tee benchmarks/target/filter-cpu.md
fi
