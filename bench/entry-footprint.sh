#!/usr/bin/env bash
# entry-footprint.sh [RUNS]: the entry's start-to-ready time and resident memory (SPEC R22, R41).
#
# Each run starts the entry in a fresh network namespace (loopback only) in front of a socat stand-in
# for the relay, and records: the time from just before the JVM is exec'd to its readiness line, VmRSS
# and VmHWM once ready, and VmRSS and VmHWM with 100 idle connections open through it. Prints the
# median of each column per JVM variant. Needs root (unshare --net), socat and a JDK 25.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
. "$root/scripts/jdk.sh"
find_jdk25 || exit 2
runs=${1:-21}
idle=100

if [ "$(id -u)" != 0 ]; then
    echo "entry-footprint: needs root to make network namespaces (unshare --net)" >&2
    exit 2
fi
command -v socat >/dev/null || { echo "entry-footprint: needs socat" >&2; exit 2; }

jar=$root/netns-entry/target/netns-entry.jar
if [ ! -f "$jar" ]; then
    (cd "$root" && mvn -B -q -DskipTests -pl netns-entry package)
fi
java=$JAVA_HOME/bin/java
work=$(mktemp -d)
relay_pid=
cleanup() {
    [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

sock=$work/relay.sock
socat -u UNIX-LISTEN:"$sock",fork OPEN:/dev/null &
relay_pid=$!
while [ ! -S "$sock" ]; do sleep 0.05; done

# The options ./portcullis gives the entry (keep in step with it).
tuned="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss256k -Xms8m -Xmx32m -XX:ReservedCodeCacheSize=16m -Xlog:disable -Xlog:all=warning:stderr"

# Archives made by one training run each: the entry binds, announces, runs `true`, exits.
train() {
    unshare --net sh -c 'ip link set lo up && exec "$@"' sh \
        "$java" $tuned "$@" -cp "$jar" io.portcullis.entry.Main --relay "$sock" -- true >/dev/null
}
train -XX:ArchiveClassesAtExit="$work/entry.jsa"
train -XX:AOTCacheOutput="$work/entry.aot"

# One run, inside its own namespace: prints "ms rss_ready hwm_ready rss_idle hwm_idle fds_idle" (KiB).
one_run() {
    ip link set lo up
    local t0 t1 line pid fd i
    t0=$(date +%s%N)
    coproc ENTRY { exec "$java" "$@" -cp "$jar" io.portcullis.entry.Main --relay "$sock"; }
    pid=$ENTRY_PID
    read -r line <&"${ENTRY[0]}"
    t1=$(date +%s%N)
    read -r rss1 hwm1 < <(awk '/^VmRSS/{r=$2} /^VmHWM/{h=$2} END{print r, h}' /proc/"$pid"/status)
    for ((i = 0; i < idle; i++)); do
        exec {fd}<>/dev/tcp/127.0.0.1/39080
    done
    sleep 1
    read -r rss2 hwm2 < <(awk '/^VmRSS/{r=$2} /^VmHWM/{h=$2} END{print r, h}' /proc/"$pid"/status)
    fds=$(ls /proc/"$pid"/fd | wc -l)
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    echo "$(( (t1 - t0) / 100000 )) $rss1 $hwm1 $rss2 $hwm2 $fds"
}
export -f one_run
export java jar sock idle

median() {  # median of column $1 of stdin
    cut -d' ' -f"$1" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}

variant() {  # variant NAME JVM-OPTIONS...
    local name=$1 results
    shift
    results=$(for ((r = 0; r < runs; r++)); do unshare --net bash -c 'one_run "$@"' bash "$@"; done)
    printf '| %-28s | %6.1f | %6d | %6d | %6d | %6d | %4d |\n' "$name" \
        "$(echo "$results" | median 1 | awk '{print $1 / 10}')" \
        "$(echo "$results" | median 2 | awk '{print int($1 / 1024)}')" \
        "$(echo "$results" | median 3 | awk '{print int($1 / 1024)}')" \
        "$(echo "$results" | median 4 | awk '{print int($1 / 1024)}')" \
        "$(echo "$results" | median 5 | awk '{print int($1 / 1024)}')" \
        "$(echo "$results" | median 6)"
}

echo "machine: $(nproc) cores, $(uname -sr), $("$java" -version 2>&1 | sed -n 2p); median of $runs runs"
echo
echo "| JVM options                  | ready ms | RSS MiB | HWM MiB | RSS MiB, $idle idle | HWM MiB, $idle idle | fds |"
echo "|---|---:|---:|---:|---:|---:|---:|"
variant "JDK defaults"                                      -Xlog:disable
variant "tuned, no class-data sharing" $tuned -Xshare:off
variant "tuned, JDK's default CDS"     $tuned -Xshare:auto
variant "tuned + AppCDS archive"       $tuned -XX:SharedArchiveFile="$work/entry.jsa"
variant "tuned + AOT cache (JEP 483)"  $tuned -XX:AOTCache="$work/entry.aot"
