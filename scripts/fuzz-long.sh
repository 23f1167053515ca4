#!/usr/bin/env bash
# A long fuzzing run: every Jazzer @FuzzTest, one at a time (one fuzzing JVM at a time), each until
# DURATION has passed or it has run EXECUTIONS inputs, whichever comes first.
#   scripts/fuzz-long.sh DURATION [EXECUTIONS [CLASS...]]    e.g. scripts/fuzz-long.sh 510s 10000000
# DURATION is a Jazzer duration ("510s", "9m"); EXECUTIONS defaults to 10000000; CLASS names the
# tests to run (e.g. DoorTargetFuzzTest), every @FuzzTest class when none is named. Both limits
# override each test's @FuzzTest(maxDuration) through Jazzer's own options (JAZZER_MAX_DURATION,
# JAZZER_MAX_EXECUTIONS). Each test's output goes to target/fuzz-long/<class>.log; a table of runs,
# seconds, coverage and findings goes to standard output and target/fuzz-long/summary.tsv.
# The corpus each test grows stays in <module>/.cifuzz-corpus/ and is where the next run starts.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$root"
. scripts/jdk.sh
find_jdk25 || exit 2

duration=${1:?usage: scripts/fuzz-long.sh DURATION [EXECUTIONS [CLASS...]] (e.g. 510s 10000000)}
executions=${2:-10000000}
shift $(($# < 2 ? $# : 2))

tests=$(grep -rl --include='*.java' '@FuzzTest' -- */src/test/java | sort)
if [ $# -gt 0 ]; then
    tests=$(grep -E "/($(IFS='|'; echo "$*"))\.java\$" <<<"$tests" || true)
fi
[ -n "$tests" ] || { echo "fuzz-long: no @FuzzTest found${1:+ named $*}"; exit 0; }
modules=$(sed 's|/src/.*||' <<<"$tests" | sort -u | paste -sd, -)
out=target/fuzz-long
mkdir -p "$out"
summary=$out/summary.tsv
printf 'target\truns\tseconds\tcov\tft\tfinding\n' >"$summary"

mvn -B -q -pl "$modules" -am test-compile >"$out/compile.log" 2>&1 || {
    echo "fuzz-long: the build failed, end of $out/compile.log:"
    tail -n 40 "$out/compile.log"
    exit 1
}

failed=0
for file in $tests; do
    module=${file%%/src/*}
    class=$(basename "$file" .java)
    log=$out/$class.log
    echo "fuzz-long: $class ($module), $(date -u +%H:%M:%S)"
    finding=none
    # test-compile again, so that the reactor resolves the sibling modules to their fresh classes
    # rather than to whatever the local repository holds; it has nothing left to compile.
    if ! JAZZER_FUZZ=1 JAZZER_MAX_DURATION=$duration JAZZER_MAX_EXECUTIONS=$executions \
        mvn -B -pl "$module" -am test-compile surefire:test -Dtest="$class" -DreuseForks=false \
        -Dsurefire.failIfNoSpecifiedTests=false >"$log" 2>&1; then
        finding=$(grep -m1 -o 'FuzzTestFindingException: .*' "$log" | cut -c1-200 || true)
        finding=${finding:-"the run failed: see $log"}
        failed=1
    fi
    done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)
    runs=$(sed -E 's/^Done ([0-9]+) runs in ([0-9]+).*/\1/' <<<"$done_line")
    seconds=$(sed -E 's/^Done ([0-9]+) runs in ([0-9]+).*/\2/' <<<"$done_line")
    stats=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 || true)
    cov=$(grep -o -E 'cov: [0-9]+' <<<"$stats" | cut -d' ' -f2 || true)
    ft=$(grep -o -E 'ft: [0-9]+' <<<"$stats" | cut -d' ' -f2 || true)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$class" "${runs:--}" "${seconds:--}" "${cov:--}" "${ft:--}" "$finding" \
        | tee -a "$summary"
done
column -t -s $'\t' "$summary"
exit $failed
