#!/usr/bin/env bash
# A short, bounded fuzzing pass over every Jazzer @FuzzTest (each stops by its own maxDuration).
# Jazzer fuzzes one test per JVM, so each runs in a Maven invocation of its own.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$root"
status=0
while IFS=: read -r file _; do
    module=${file%%/src/*}
    class=$(basename "$file" .java)
    echo "fuzz-short: $module $class"
    JAZZER_FUZZ=1 mvn -B -q -pl "$module" -am test-compile surefire:test -Dtest="$class" -Dsurefire.failIfNoSpecifiedTests=false || status=1
done < <(grep -rl --include='*.java' '@FuzzTest' -- */src/test/java | sed 's/$/:/' | sort)
exit $status
