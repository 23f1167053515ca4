#!/usr/bin/env bash
# Prints one closing line over every surefire report: "tests: N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
shopt -s nullglob
reports=(*/target/surefire-reports/TEST-*.xml)
[ ${#reports[@]} -gt 0 ] || { echo "tests: 0 passed, 0 failed"; exit 0; }
sed -n 's/^<testsuite \(.*\)>$/\1/p; s/^<testsuite \([^>]*\)>.*/\1/p' "${reports[@]}" | awk '
    { for (i = 1; i <= NF; i++) { split($i, kv, "="); gsub(/"/, "", kv[2]); v[kv[1]] += kv[2] } }
    END { failed = v["failures"] + v["errors"]; skipped = v["skipped"];
          printf "tests: %d passed, %d failed, %d skipped\n", v["tests"] - failed - skipped, failed, skipped }'
