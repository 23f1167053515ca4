#!/usr/bin/env bash
# A short, bounded fuzzing pass over every Jazzer @FuzzTest: each fuzzes until its own maxDuration.
# Jazzer fuzzes one test per JVM, so every test class gets a fork of its own (reuseForks=false).
# The fuzzers' output goes to target/fuzz.log; a failing run prints its end.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$root"
. scripts/jdk.sh
find_jdk25 || exit 2

modules=$(grep -rl --include='*.java' '@FuzzTest' -- */src/test/java | sed 's|/src/.*||' | sort -u | paste -sd, -)
[ -n "$modules" ] || { echo "fuzz-short: no @FuzzTest found"; exit 0; }
mkdir -p target
log=target/fuzz.log
if JAZZER_FUZZ=1 mvn -B -pl "$modules" -am test-compile surefire:test -Dtest='*FuzzTest' -DreuseForks=false \
    -Dsurefire.failIfNoSpecifiedTests=false >"$log" 2>&1; then
    awk '/^\[INFO\] Running /{c=$3} /^Done [0-9]+ runs/{print "fuzz-short: " c ": " $0 ", no finding"}' "$log"
else
    echo "fuzz-short: FAILED, end of $log:"
    tail -n 80 "$log"
    exit 1
fi
