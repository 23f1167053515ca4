#!/usr/bin/env bash
# entry-footprint.sh [RUNS]: the entry's start-to-ready time and resident memory (SPEC R22, R41).
#
# Each run starts the entry in a fresh network namespace (loopback only) in front of a socat stand-in
# for the relay and records: the wall time from just before the JVM is exec'd to its readiness line,
# the CPU time it used by then, and its memory at three moments: at readiness; "settled", 1 s later
# with no connection; and 1 s after IDLE (default 100) connections were opened through it and left
# silent. Prints the median of each column per JVM variant, as a Markdown table.
# Needs root (unshare --net), socat and a JDK 25. ONLY=REGEX limits the variants by name; EXTRA_OPTS
# adds JVM options to the tuned set, to try one.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
. "$root/scripts/jdk.sh"
find_jdk25 || exit 2
runs=${1:-21}
idle=${IDLE:-100}

if [ "$(id -u)" != 0 ]; then
    echo "entry-footprint: needs root to make network namespaces (unshare --net)" >&2
    exit 2
fi
command -v socat >/dev/null || { echo "entry-footprint: needs socat" >&2; exit 2; }

jar=$root/netns-entry/target/netns-entry.jar
(cd "$root" && mvn -B -q -DskipTests -pl netns-entry package) >/dev/null 2>&1 || { echo "entry-footprint: build failed (mvn -pl netns-entry package)" >&2; exit 2; }
java=$JAVA_HOME/bin/java
work=$(mktemp -d)
relay_pid=
cleanup() {
    [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

sock=$work/relay.sock
socat -u UNIX-LISTEN:"$sock",fork,backlog=256 OPEN:/dev/null &
relay_pid=$!
while [ ! -S "$sock" ]; do sleep 0.05; done

# The options ./portcullis gives the entry (keep the two in step).
tuned="-XX:-UsePerfData -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss256k -Xms8m -Xmx32m
    -XX:ReservedCodeCacheSize=16m -Xlog:disable -Xlog:all=warning:stderr ${EXTRA_OPTS:-}"

# Archives made by one training run each: the entry binds, announces, runs `true`, exits.
train() {
    unshare --net sh -c 'ip link set lo up && exec "$@"' sh \
        "$java" $tuned "$@" -cp "$jar" io.portcullis.entry.Main --relay "$sock" -- true >/dev/null 2>"$work/train.log"
}
train -XX:ArchiveClassesAtExit="$work/entry.jsa"
train -XX:AOTCacheOutput="$work/entry.aot"

memory() {  # "VmRSS RssAnon VmHWM" of pid $1, KiB
    awk '/^VmRSS/{r=$2} /^RssAnon/{a=$2} /^VmHWM/{h=$2} END{print r, a, h}' /proc/"$1"/status
}

# One run, inside its own namespace. Prints (memory in KiB):
#   ready_ms*10 cpu_ticks rss_ready rss_settled anon_settled rss_idle anon_idle hwm fds_idle
one_run() {
    ip link set lo up
    local t0 t1 line pid fd i cpu ready settled idled fds
    t0=$(date +%s%N)
    coproc ENTRY { exec "$java" "$@" -cp "$jar" io.portcullis.entry.Main --relay "$sock"; }
    pid=$ENTRY_PID
    read -r line <&"${ENTRY[0]}"
    t1=$(date +%s%N)
    cpu=$(sed 's/.*) //' /proc/"$pid"/stat | awk '{print $12 + $13}')
    ready=$(memory "$pid")
    sleep 1
    settled=$(memory "$pid")
    for ((i = 0; i < idle; i++)); do
        exec {fd}<>/dev/tcp/127.0.0.1/39080
    done
    sleep 1
    idled=$(memory "$pid")
    fds=$(ls /proc/"$pid"/fd | wc -l)
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    echo "$(( (t1 - t0) / 100000 )) $cpu ${ready%% *} $(cut -d' ' -f1,2 <<<"$settled") $idled $fds"
}
export -f one_run memory
export java jar sock idle

median() {  # median of column $1 of stdin
    cut -d' ' -f"$1" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}

mib() {  # median of column $1, KiB -> MiB
    median "$1" | awk '{printf "%.1f", $1 / 1024}'
}

names=()
opts=()
variant() {  # variant NAME JVM-OPTIONS...: registers one column of runs
    [ -z "${ONLY:-}" ] || [[ $1 =~ $ONLY ]] || return 0
    names+=("$1")
    shift
    opts+=("$*")
}

row() {  # row INDEX: the medians of one variant's runs
    local results hz
    results=$(cat "$work/runs.$1")
    hz=$(getconf CLK_TCK)
    echo "| ${names[$1]} | $(median 1 <<<"$results" | awk '{printf "%.1f", $1 / 10}')" \
        "| $(median 2 <<<"$results" | awk -v hz="$hz" '{print int($1 * 1000 / hz)}')" \
        "| $(mib 3 <<<"$results") | $(mib 4 <<<"$results") | $(mib 5 <<<"$results")" \
        "| $(mib 6 <<<"$results") | $(mib 7 <<<"$results") | $(mib 8 <<<"$results")" \
        "| $(median 9 <<<"$results") |"
}

variant "JDK defaults"                    -Xlog:disable
variant "tuned, CDS off"                  $tuned -Xshare:off
variant "tuned, JDK's default CDS"        $tuned -Xshare:auto
variant "tuned + AppCDS archive"          $tuned -XX:SharedArchiveFile="$work/entry.jsa"
variant "tuned + AOT cache (JEP 483/514)" $tuned -XX:AOTCache="$work/entry.aot"

load=$(cut -d' ' -f1-3 /proc/loadavg)
# Interleaved, so that other load on the machine falls on every variant alike.
for ((r = 0; r < runs; r++)); do
    for i in "${!names[@]}"; do
        # shellcheck disable=SC2086 # the options are words
        unshare --net bash -c 'one_run "$@"' bash ${opts[$i]} >>"$work/runs.$i"
    done
done

echo "machine: $(nproc) cores, $(uname -sr), $("$java" -version 2>&1 | sed -n 2p)," \
    "load average at the start $load, at the end $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs; memory in MiB"
echo
echo "| JVM options | ready ms | CPU ms | RSS ready | RSS settled | anon settled | RSS $idle idle | anon $idle idle | peak RSS | fds |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for i in "${!names[@]}"; do
    row "$i"
done
