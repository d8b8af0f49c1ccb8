#!/usr/bin/env bash
# Runs each release mutation (mutations.xml) against filter-core and every adapter module, and
# lists the tests that failed under it, per module. A mutation that no test of a module catches
# is reported as SURVIVED: the mutation check of docs/testing.md has failed for that module.
#
#   filter-core/src/mutation/run.sh [mutation...]      (default: all three)
#   MODULES=filter-core,servlet,jaxrs,spring-boot-starter  the modules whose tests count
#   LOGDIR=/tmp                                           where each run's Maven log goes
#
# Leaves every module cleaned and rebuilt without a mutation at the end: nothing mutated stays
# in target/.
set -euo pipefail
cd "$(dirname "$0")/../../.."
mutations=("${@:-double-release missing-release early-release}")
read -r -a mutations <<< "${mutations[*]}"
modules="${MODULES:-filter-core,servlet,jaxrs,spring-boot-starter}"
status=0
for m in "${mutations[@]}"; do
  mkdir -p "${LOGDIR:-${TMPDIR:-/tmp}}"
  log="${LOGDIR:-${TMPDIR:-/tmp}}/sluice-mutation-$m.log" # not under target/: the run cleans it
  echo "== $m"
  # Test failures must not stop the reactor: every module's tests run against the mutant.
  mvn -B -o -Dsluice.mutation="$m" -Dmaven.test.failure.ignore=true -Dsurefire.failIfNoSpecifiedTests=false \
      -Dsluice.ledger.settle=PT2S \
      -Dtest='!io.github.sluice.redis.**,!io.github.sluice.micrometer.**' \
      -pl "$modules" -am clean test > "$log" 2>&1 || { echo "build failed, see $log"; status=1; continue; }
  grep -q "compiled with the '$m' mutation" "$log" || { echo "the mutation was not applied, see $log"; status=1; continue; }
  IFS=',' read -r -a mods <<< "$modules"
  for mod in "${mods[@]}"; do
    failed=$(grep -l -E '<(failure|error)( |>)' "$mod"/target/surefire-reports/TEST-*.xml 2>/dev/null \
        | sed -E 's#.*/TEST-(.*)\.xml#\1#' | sed 's/^io\.github\.sluice\.//' | sort | tr '\n' ' ' || true)
    if [ -z "$failed" ]; then
      echo "   $mod: SURVIVED"
      status=1
    else
      echo "   $mod: caught by $failed"
    fi
  done
done
mvn -B -o -q -pl "$modules" -am clean > /dev/null
exit $status
