#!/usr/bin/env bash
# daemon-start.sh [RUNS] EXECUTABLE...: how long `portcullis daemon` takes to be ready, and what it
# holds once idle (docs/benchmarks.md, "Start-up and resident size").
#
# Each run starts EXECUTABLE daemon with a host file of every default ({}), a control socket and
# spawn folder in a fresh temporary folder, and times from just before the start to the moment its
# ready line is read; it then leaves the daemon idle (IDLE seconds, default 10: no spawn, no
# request), reads VmRSS and RssAnon (private memory: the heap, the JIT's code, what the JVM
# allocated; not the mapped files such as libjvm and the class archives) and its thread count from
# /proc, and kills it. With several executables (a build before and after a change), the runs go in
# turn, one of each, so that other load on the machine falls on all alike. Prints the median of
# each column per executable. Needs nothing but bash, awk and sort; no root.
set -euo pipefail
runs=7
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
    runs=$1
    shift
fi
[ $# -ge 1 ] || { echo "usage: daemon-start.sh [RUNS] EXECUTABLE..." >&2; exit 2; }
idle=${IDLE:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/portcullis-daemon-start-XXXXXX")
trap 'rm -rf "$work"' EXIT

# one EXECUTABLE: prints "ready_seconds rss_kib anon_kib threads"
one() {
    local dir pid line start ready
    dir=$(mktemp -d "$work/run-XXXXXX")
    echo '{}' >"$dir/host.json"
    mkfifo "$dir/out"
    start=$(date +%s%N)
    # The executable is a script that execs java: the pid is the JVM's.
    "$1" daemon --host "$dir/host.json" --control "$dir/control.sock" --dir "$dir" >"$dir/out" 2>/dev/null &
    pid=$!
    exec 3<"$dir/out"
    read -r line <&3
    ready=$(date +%s%N)
    sleep "$idle"
    awk -v ms=$(((ready - start) / 1000000)) '/^VmRSS|^RssAnon|^Threads/ {v[$1] = $2}
        END {printf "%.3f %d %d %d\n", ms / 1000, v["VmRSS:"], v["RssAnon:"], v["Threads:"]}' "/proc/$pid/status"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    exec 3<&-
}

for ((i = 0; i < runs; i++)); do
    for exe in "$@"; do
        echo "$exe $(one "$exe")" >>"$work/results"
    done
done
echo "| executable | ready, s | RSS idle, MiB | private (RssAnon), MiB | threads |"
echo "|---|---:|---:|---:|---:|"
median() {  # median EXECUTABLE COLUMN
    grep -F "$1 " "$work/results" | awk -v c="$2" '{print $c}' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
for exe in "$@"; do
    awk -v exe="$exe" -v s="$(median "$exe" 2)" -v rss="$(median "$exe" 3)" -v anon="$(median "$exe" 4)" \
        -v t="$(median "$exe" 5)" 'BEGIN {printf "| %s | %.2f | %.1f | %.1f | %d |\n", exe, s, rss / 1024, anon / 1024, t}'
done
