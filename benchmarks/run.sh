#!/usr/bin/env bash
# Runs the JMH suite (single key allowed/denied, many keys, enforcer path, Redis) with -prof gc at
# 1 and 2 threads, measures the retained heap per key, and prints the comparison tables.
#
# usage: benchmarks/run.sh [quick|full] [benchmark regex]
#   quick (default): 1 fork, 2 x 1 s warm-up, 3 x 1 s measurement; under 10 minutes on 2 cores
#   full:            2 forks, 3 x 2 s warm-up, 5 x 2 s measurement; about 40 minutes on 2 cores
#   regex: restricts the JMH benchmarks, e.g. 'SingleKeyAllowed' (default: all)
#   The heavy hitters' cost (TopClientsCost: top-clients off, on for refusals, on for admissions
#   too) runs at 1 thread whenever the regex covers it, and its comparison ends the summary.
#   environment: NOBUILD=1 reuses benchmarks/target/benchmarks.jar; THREADS="1 2" thread counts;
#                REDIS_THREADS="1 16 64" thread counts of the Redis benchmarks (their targets are
#                at 1, 16 and 64 threads: most threads wait on the network, not on a core);
#                REDIS_ROUNDS=15 rounds of the 1-thread Redis comparison in one JVM (Interleaved);
#                KEYS_ROUNDS=15 rounds of the Redis many-keys comparison (KeyCount: 1,000, 10,000
#                and 1,000,000 keys round-robin, bytes and decisions per second);
#                HOTKEY_ROUNDS=7, HOTKEY_MILLIS=400: the hot-key comparison at REDIS_THREADS threads,
#                Sluice vs Bucket4j default and Optimizations.batching(), alternating (HotKeyRounds;
#                with a lease-mode contender, sluice-lease), then redis-server's time per decision
#                of the batch script (ScriptCost);
#                JMH_OPTS="..." replaces the mode's fork/iteration options (smoke tests);
#                HTTP=1 also runs the HTTP CPU-time comparison (benchmarks/http-cpu.sh, about
#                5 minutes; HTTP_ARGS="rate requests rounds warm-up connections" sets it), then
#                the HTTP verdicts by composition (FilterCpu: each limiter's own CPU per request
#                in-process, over the no-filter servers' CPU per request end to end; ~2 minutes;
#                FILTER_ROUNDS=15); HTTP_BASE="jetty=<us>,tomcat=<us>" runs the composition alone,
#                on no-filter figures from an earlier http-cpu.sh run;
#                REACTIVE=1 also runs the reactive stacks' CPU per request (benchmarks/reactive-cpu.sh,
#                about 10 minutes: the WebFlux and gateway filters' own CPU on Reactor Netty, and the
#                Redis token bucket against Spring Cloud Gateway's RedisRateLimiter at 1 and 16 clients);
#                CPU=1 also measures CPU time per operation in interleaved rounds (CpuPerOp:
#                the single-key algorithms against the floor, denied against allowed, a calendar
#                window against the epoch-aligned fixed window, a plan with a cached override
#                against a fixed policy, outcome counting's refund against one refund, the
#                enforcer path against the floor, and the 1M-key registry against Caffeine; steady on a loaded machine, where JMH's
#                wall-clock scores are not; CPU_ROUNDS=15 rounds; a few minutes of CPU)
# The Redis benchmarks start their own redis-server (and Redis Clusters of 1 and 3 masters) on
# free loopback ports (skipped, with a note, if redis-server is not on the PATH). Not part of
# mvn verify. The summary ends with every target and its verdict: met, missed, or not run (its
# benchmark was not part of this run: a regex that leaves it out, no redis-server, no HTTP=1);
# a comparison with a container's limiter whose rounds do not agree is "not resolved".
# Output: benchmarks/target/jmh-<mode>-t<threads>.json, heap-per-key.txt, summary-<mode>.md.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-quick}
REGEX=${2:-'io.github.sluice.bench.(micro|redis)'}
THREADS=${THREADS:-"1 2"}
REDIS_THREADS=${REDIS_THREADS:-"1 16 64"}
case "$MODE" in
  quick) OPTS=(-f 1 -wi 2 -w 1s -i 3 -r 1s) ;;
  full)  OPTS=(-f 2 -wi 3 -w 2s -i 5 -r 2s) ;;
  *) echo "mode must be quick or full but was $MODE" >&2; exit 2 ;;
esac
[ -n "${JMH_OPTS:-}" ] && read -r -a OPTS <<<"$JMH_OPTS"
JAR=benchmarks/target/benchmarks.jar
T=benchmarks/target
[ "${NOBUILD:-0}" = 1 ] && [ -f "$JAR" ] || benchmarks/build.sh
REDIS=1
if ! command -v redis-server >/dev/null; then
  echo "note: redis-server not found, Redis benchmarks skipped (their targets print as not run)" >&2
  REDIS=0
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  "$(java -version 2>&1 | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$T/machine-$MODE.txt"
# Heavy hitters (top-clients): the added cost on the allowed and denied paths (the targets:
# +10 % denied, +2 % allowed, with the default, which keeps refusals only).
# A regex naming TopClientsCost alone runs this comparison and nothing else.
rm -f "$T/topclients-$MODE.md"
if [[ "io.github.sluice.bench.micro.TopClientsCost" =~ $REGEX ]]; then
  TOPCSV="$T/jmh-$MODE-topclients.csv"
  java -jar "$JAR" 'io.github.sluice.bench.micro.TopClientsCost' "${OPTS[@]}" -t 1 -rf csv -rff "$TOPCSV" >/dev/null
  { printf '\n### Heavy hitters (top-clients): added cost per request, 1 thread (TopClientsCost)\n\n'
    awk -F, '
      NR > 1 { gsub(/["\r]/, ""); split($1, n, /\./); b = n[length(n)]; ns[b "," $8] = $5 }
      function pct(on, off) { return sprintf("%+.1f %%", (on - off) * 100 / off) }
      function row(target, path, mode, limit,   d) {
        d = (ns[path "," mode] - ns[path ",off"]) * 100 / ns[path ",off"]
        printf "| %s | %s, top-clients %s | %.1f ns against %.1f ns off: %s | %s |\n", target, path, mode,
          ns[path "," mode], ns[path ",off"], pct(ns[path "," mode], ns[path ",off"]), (limit == "" ? "-" : (d <= limit ? "met" : "missed")) " (wall clock)"
      }
      END {
        print "| target | path | measured | verdict |"; print "|---|---|---:|---|"
        row("<= +10 % on the denied path", "denied", "denied", 10)
        row("<= +2 % on the allowed path", "allowed", "denied", 2)
        row("(a flood of distinct keys)", "deniedFlood", "denied", "")
        row("(admissions kept too, opt-in)", "allowed", "admitted", "")
      }' "$TOPCSV"; } > "$T/topclients-$MODE.md"
  # JMH's wall-clock scores swing with the machine's load; CPU time per operation, in interleaved
  # rounds of the same JVM, does not: the verdicts that count are these.
  { printf '\nCPU time per request, interleaved rounds (CpuPerOp top):\n\n'
    java -cp "$JAR" io.github.sluice.bench.micro.CpuPerOp top "${CPU_ROUNDS:-15}"; } >> "$T/topclients-$MODE.md"
  if [[ "$REGEX" == *TopClientsCost* ]]; then
    cat "$T/topclients-$MODE.md"
    exit 0
  fi
fi
FILES=()
ONLY_REDIS=0
[[ "$REGEX" != *micro* && ( "$REGEX" == *redis* || "$REGEX" == *Redis* ) ]] && ONLY_REDIS=1
if [ "$ONLY_REDIS" = 0 ]; then
  for t in $THREADS; do
    out="$T/jmh-$MODE-t$t.json"
    java -jar "$JAR" "$REGEX" -e 'bench.redis|TopClientsCost' "${OPTS[@]}" -t "$t" -prof gc -rf json -rff "$out"
    FILES+=("$out")
  done
fi
# Redis: Sluice vs Bucket4j on one redis-server, and Sluice on clusters of 1 and 3 masters.
if [ "$REDIS" = 1 ] && [[ "$REGEX" == *redis* || "$REGEX" == *Redis* ]]; then
  RREGEX=$REGEX
  [ "$ONLY_REDIS" = 1 ] || RREGEX='io.github.sluice.bench.redis'
  for t in $REDIS_THREADS; do
    out="$T/jmh-$MODE-redis-t$t.json"
    java -jar "$JAR" "$RREGEX" "${OPTS[@]}" -t "$t" -prof gc -rf json -rff "$out"
    FILES+=("$out")
  done
fi
# Redis allocation per decision, counted exactly on every thread (independent of the load).
ALLOC=
REDIS1=
KEYS=
HOTKEY=
if [ "$REDIS" = 1 ] && [[ "$REGEX" == *redis* || "$REGEX" == *Redis* ]]; then
  ALLOC="$T/redis-alloc.txt"
  java -cp "$JAR" io.github.sluice.bench.redis.AllocationPerDecision > "$ALLOC" || true
  # One hot key at 1 thread in interleaved rounds: CPU time per decision (client JVM + redis-server)
  # and round trips, which the machine's load does not inflate; the summary takes its verdict from
  # here when JMH's 1-thread ratio is inconclusive (its interval spans 1.5x). REDIS_ROUNDS=15.
  REDIS1="$T/redis-1thread.txt"
  java -cp "$JAR" io.github.sluice.bench.redis.Interleaved "${REDIS_ROUNDS:-15}" | tee "$REDIS1"
  # Many keys round-robin (1,000, 10,000, 1,000,000, and one hot key) in interleaved rounds:
  # decisions per second, CPU and bytes per decision; targets <= 500 B and within 10 % of 1,000
  # keys. KEYS_ROUNDS=15.
  KEYS="$T/redis-keys.txt"
  java -cp "$JAR" io.github.sluice.bench.redis.KeyCount "${KEYS_ROUNDS:-15}" | tee "$KEYS" || true
  # One hot key at REDIS_THREADS threads in alternating rounds: Sluice (coalescing on, and off as
  # the baseline for p99) vs Bucket4j's default and Optimizations.batching(); throughput, p99, CPU
  # per decision. HOTKEY_ROUNDS=7 rounds of HOTKEY_MILLIS=400 ms per contender.
  HOTKEY="$T/redis-hotkey.txt"
  # shellcheck disable=SC2086
  java -cp "$JAR" io.github.sluice.bench.redis.HotKeyRounds "${HOTKEY_ROUNDS:-7}" "${HOTKEY_MILLIS:-400}" \
    $REDIS_THREADS | tee "$HOTKEY"
  # redis-server's own time per decision of the batch script, by algorithm and batch size (1, 8,
  # 32, 64 requests on one key): INFO commandstats' usec_per_call of FCALL (ScriptCost, ~1 min).
  java -cp "$JAR" io.github.sluice.bench.redis.ScriptCost 2000 | tee "$T/redis-script-cost.txt" || true
fi

HEAP=
if [[ "ManyKeys" =~ $REGEX ]] || [[ "$REGEX" == *micro* ]] || [[ "$REGEX" == *ManyKeys* ]]; then
  HEAP="$T/heap-per-key.txt"
  : > "$HEAP"
  for s in sluice caffeine bucket4j; do
    java -Xms3g -Xmx3g -cp "$JAR" io.github.sluice.bench.micro.HeapPerKey "$s" | tee -a "$HEAP"
  done
fi
HTTPCPU=
if [ "${HTTP:-0}" = 1 ]; then
  rm -f "$T/http-cpu.txt"
  # shellcheck disable=SC2086
  java -cp "$JAR" io.github.sluice.bench.http.CpuPerRequest ${HTTP_ARGS:-} | tee "$T/http-cpu.md"
  HTTPCPU="$T/http-cpu.txt"
fi
# The HTTP verdicts by composition: each limiter's own CPU per request in-process (FilterCpu), over
# the no-filter servers' CPU per request end to end (this run's http-cpu.txt, or HTTP_BASE).
if [ "${HTTP:-0}" = 1 ] || [ -n "${HTTP_BASE:-}" ]; then
  rm -f "$T/filter-cpu.txt"
  # shellcheck disable=SC2086
  java -cp "$JAR" io.github.sluice.bench.http.FilterCpu "${FILTER_ROUNDS:-15}" ${HTTP_BASE:-} | tee "$T/filter-cpu.md"
  HTTPCPU="$HTTPCPU $T/filter-cpu.txt"
fi
if [ "${REACTIVE:-0}" = 1 ]; then
  rm -f "$T/reactive-cpu.txt"
  benchmarks/reactive-cpu.sh
  HTTPCPU="$HTTPCPU $T/reactive-cpu.txt"
fi
CPUOP=()
if [ "${CPU:-0}" = 1 ]; then
  java -cp "$JAR" io.github.sluice.bench.micro.CpuPerOp single "${CPU_ROUNDS:-15}" | tee "$T/cpu-single.md"
  java -cp "$JAR" io.github.sluice.bench.micro.CpuPerOp enforcer "${CPU_ROUNDS:-15}" | tee "$T/cpu-enforcer.md"
  java -cp "$JAR" io.github.sluice.bench.micro.CpuPerOp calendar "${CPU_ROUNDS:-15}" | tee "$T/cpu-calendar.md"
  java -cp "$JAR" io.github.sluice.bench.micro.CpuPerOp plan "${CPU_ROUNDS:-15}" | tee "$T/cpu-plan.md"
  java -cp "$JAR" io.github.sluice.bench.micro.CpuPerOp outcome "${CPU_ROUNDS:-15}" | tee "$T/cpu-outcome.md"
  java -Xms3g -Xmx3g -cp "$JAR" io.github.sluice.bench.micro.CpuPerOp keys "${CPU_ROUNDS:-15}" | tee "$T/cpu-keys.md"
  CPUOP=("$T/cpu-single.md" "$T/cpu-enforcer.md" "$T/cpu-calendar.md" "$T/cpu-plan.md" "$T/cpu-outcome.md"
         "$T/cpu-keys.md")
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$T/machine-$MODE.txt"
java -cp "$JAR" io.github.sluice.bench.report.Summary "${FILES[@]}" $HEAP $HTTPCPU $REDIS1 | tee "$T/summary-$MODE.md"
if [ -n "$ALLOC" ]; then
  { printf '\n### Redis allocation per decision (every thread, exact counters, 20,000 decisions)\n\n'
    printf '| target | measured on | measured | verdict |\n|---|---|---:|---|\n'
    cat "$ALLOC"; } | tee -a "$T/summary-$MODE.md"
else
  printf '\n### Redis allocation per decision\n\n| target | measured on | measured | verdict |\n|---|---|---:|---|\n| <= 1,000 B per decision, exact counters | - | not run | not run |\n' \
    | tee -a "$T/summary-$MODE.md"
fi
if [ -n "${KEYS:-}" ]; then
  { printf '\n### Redis: many keys round-robin, 1 thread, interleaved rounds (KeyCount)\n\n'
    sed -n '/^| keys/,$p' "$KEYS"; } | tee -a "$T/summary-$MODE.md"
else
  printf '\n### Redis: many keys round-robin (KeyCount)\n\nnot run (needs redis-server and a Redis regex)\n' \
    | tee -a "$T/summary-$MODE.md"
fi
if [ "${#CPUOP[@]}" -gt 0 ]; then
  { printf '\n### CPU time per operation, interleaved rounds (CpuPerOp)\n\n'
    sed -n '/^| target/,$p' "${CPUOP[@]}"; } | tee -a "$T/summary-$MODE.md"
else
  printf '\n### CPU time per operation (CpuPerOp)\n\nnot run (CPU=1 runs it)\n' | tee -a "$T/summary-$MODE.md"
fi
if [ -n "${HOTKEY:-}" ] && [ -f "$HOTKEY" ]; then
  { printf '\n### Redis, one hot key: Sluice vs Bucket4j default and batching (HotKeyRounds, medians of per-round ratios)\n\n'
    printf '| target | measured | verdict |\n|---|---:|---|\n'
    awk '/^redis-hotkey / {
        t = ""; for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        t = v["threads"]
        split(v["vs-bucket4j-default"], d, ":"); split(v["vs-bucket4j-batching"], b, ":")
        if (t == 1) printf "| 1 thread: >= 1.5x Bucket4j default | %.2fx (%.2f-%.2f) | %s |\n", d[1], d[2], d[3], (d[1] >= 1.5 ? "met" : "missed")
        else printf "| %d threads: >= 1.5x Bucket4j batching | %.2fx (%.2f-%.2f) | %s |\n", t, b[1], b[2], b[3], (b[1] >= 1.5 ? "met" : "missed")
        if (v["lease-vs-bucket4j-batching"] != "") { split(v["lease-vs-bucket4j-batching"], l, ":")
          printf "| %d thread(s), lease mode (not exact: one share per instance over, docs/redis.md): >= 1.5x Bucket4j batching | %.2fx (%.2f-%.2f) | %s |\n", t, l[1], l[2], l[3], (l[1] >= 1.5 ? "met" : "missed") }
        if (t == 16) printf "| 16 threads: p99 no worse than without coalescing | %s us against %s us | %s |\n", v["sluiceP99"], v["sluice-no-coalescingP99"], (v["sluiceP99"] + 0 <= v["sluice-no-coalescingP99"] + 0 ? "met" : "missed")
      }' "$HOTKEY"; } | tee -a "$T/summary-$MODE.md"
fi
# The heavy hitters' comparison, measured first (above), ends the summary.
[ -f "$T/topclients-$MODE.md" ] && tee -a "$T/summary-$MODE.md" < "$T/topclients-$MODE.md"
