#!/usr/bin/env bash
# Ratios that a loaded, shared machine can support: the same short JMH run repeated in rounds,
# every benchmark of a round in its own fork, and each ratio (cost vs the floor, registry vs
# Caffeine, denied vs allowed) taken within a round; prints the median and min-max over rounds.
#
# usage: benchmarks/rounds.sh [rounds] [benchmark regex]
#   rounds (default 5); regex (default: the floor, every Sluice algorithm allowed and denied)
#   e.g. benchmarks/rounds.sh 5 'SingleKeyAllowed.(floor|sluiceSlidingWindow)$'
#        benchmarks/rounds.sh 5 'ManyKeys.(sluiceRegistry|caffeineLimiters)'
#   environment: NOBUILD=1 reuses the jar; THREADS=1 the thread count;
#                JMH_OPTS="..." replaces the per-round options (-f 1 -wi 2 -w 1s -i 3 -r 1s)
# Output: benchmarks/target/rounds-<time>/round-<n>.json and summary.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
REGEX=${2:-'SingleKey(Allowed|Denied).(floor|sluice.*)$'}
THREADS=${THREADS:-1}
OPTS=(-f 1 -wi 2 -w 1s -i 3 -r 1s)
[ -n "${JMH_OPTS:-}" ] && read -r -a OPTS <<<"$JMH_OPTS"
JAR=benchmarks/target/benchmarks.jar
[ "${NOBUILD:-0}" = 1 ] && [ -f "$JAR" ] || benchmarks/build.sh
DIR=benchmarks/target/rounds-$(date -u +%Y%m%dT%H%M%S)
mkdir -p "$DIR"
echo "machine: $(nproc) cores, load at start $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$DIR/machine.txt"
FILES=()
for r in $(seq 1 "$ROUNDS"); do
  java -jar "$JAR" "$REGEX" "${OPTS[@]}" -t "$THREADS" -rf json -rff "$DIR/round-$r.json" >"$DIR/round-$r.log" 2>&1
  echo "round $r done, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$DIR/machine.txt"
  FILES+=("$DIR/round-$r.json")
done
java -cp "$JAR" io.github.sluice.bench.report.Rounds "${FILES[@]}" | tee "$DIR/summary.md"
