#!/usr/bin/env bash
# HTTP overhead of rate-limiting filters: wrk on loopback against a hello-world servlet in
# embedded Jetty 12 (no filter, Sluice, Jetty QoSHandler, Jetty DoSHandler) and embedded Tomcat
# (no filter, Tomcat RateLimitFilter, Sluice). Every limit is far above the offered load, so
# nothing is denied: what is measured is the cost of checking.
#
# usage: benchmarks/http.sh [seconds-per-run, default 15] [rounds, default 2]
#   environment: CONNECTIONS (16), WRK_THREADS (1), WARMUP seconds (5), NOBUILD=1 to reuse the jar
# Not part of mvn verify. Loopback only. Prints a Markdown table; raw figures go to
# benchmarks/target/http-<timestamp>.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN=${1:-15}
ROUNDS=${2:-2}
CONNECTIONS=${CONNECTIONS:-16}
WRK_THREADS=${WRK_THREADS:-1}
WARMUP=${WARMUP:-5}
JAR=benchmarks/target/benchmarks.jar
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
[ "${NOBUILD:-0}" = 1 ] && [ -f "$JAR" ] || benchmarks/build.sh
OUT=benchmarks/target/http-$(date -u +%Y%m%dT%H%M%SZ).tsv
printf 'round\tserver\tlimiter\trps\tp99_us\tnon2xx\n' > "$OUT"

free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo $p; return; }
  done
}

to_us() { # wrk latency such as 812.00us, 1.23ms, 2.01s
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) print n; else if (v ~ /ms$/) print n * 1000;
    else if (v ~ /s$/) print n * 1000000; else print n }'
}

SERVER_PID=
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true; }
trap cleanup EXIT

CONFIGS=("jetty none" "jetty sluice" "jetty qos" "jetty dos" "tomcat none" "tomcat ratelimit" "tomcat sluice")
for round in $(seq 1 "$ROUNDS"); do
  for cfg in "${CONFIGS[@]}"; do
    set -- $cfg
    port=$(free_port)
    log=$(mktemp)
    java -Xms512m -Xmx512m -cp "$JAR" io.github.sluice.bench.http.HttpServer "$1" "$2" "$port" >"$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 150); do grep -q READY "$log" && break; sleep 0.2; done
    grep -q READY "$log" || { echo "server $cfg did not start:" >&2; cat "$log" >&2; exit 1; }
    url=http://127.0.0.1:$port/hello
    wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" "$url" >/dev/null
    result=$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency "$url")
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=
    rm -f "$log"
    rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$result")
    p99=$(to_us "$(awk '$1 == "99%" { print $2 }' <<<"$result")")
    non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $5 }' <<<"$result")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$1" "$2" "$rps" "$p99" "${non2xx:-0}" >> "$OUT"
    echo "round $round $cfg: $rps req/s, p99 ${p99} us, non-2xx ${non2xx:-0}" >&2
  done
done
echo "raw: $OUT" >&2
java -cp "$JAR" io.github.sluice.bench.report.HttpSummary "$OUT"
