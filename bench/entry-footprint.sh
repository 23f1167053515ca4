#!/usr/bin/env bash
# entry-footprint.sh [RUNS]: the entry's start-to-ready time, CPU and peak memory (SPEC R22, R41).
#
# The entry is a start-up step: it binds the namespace's sockets, hands them to the relay, prints its
# readiness line and becomes the command; nothing of it stays. Each run starts it in a fresh network
# namespace (loopback only) without a command, handing over to a stand-in relay
# (scripts/standin-relay.py), and records the wall time from just before the JVM is exec'd to its
# readiness line, and the CPU time and peak RSS of the whole process (it exits once ready). Prints the
# median of each column per JVM variant, as a Markdown table.
# Needs root (unshare --net), python3 and a JDK 25. ONLY=REGEX limits the variants by name; EXTRA_OPTS
# adds JVM options to the tuned set, to try one.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
. "$root/scripts/jdk.sh"
find_jdk25 || exit 2
runs=${1:-21}

if [ "$(id -u)" != 0 ]; then
    echo "entry-footprint: needs root to make network namespaces (unshare --net)" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "entry-footprint: needs python3" >&2; exit 2; }

jar=$root/netns-entry/target/netns-entry.jar
(cd "$root" && mvn -B -q -DskipTests -pl netns-entry package) >/dev/null 2>&1 || { echo "entry-footprint: build failed (mvn -pl netns-entry package)" >&2; exit 2; }
java=$JAVA_HOME/bin/java
work=$(mktemp -d)
standin=
cleanup() {
    [ -n "$standin" ] && kill "$standin" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

sock=$work/relay.sock
python3 "$root/scripts/standin-relay.py" "$sock" >/dev/null &
standin=$!
while [ ! -S "$sock" ]; do sleep 0.05; done
# The stand-in checks no key; the entry still needs one to start, and reads it as it always does.
export PORTCULLIS_HANDOFF_KEY=0000000000000000000000000000000000000000000000000000000000000000

# The options ./portcullis gives the entry (keep the two in step).
tuned="--enable-native-access=ALL-UNNAMED -XX:-UsePerfData -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss256k
    -Xms8m -Xmx32m -XX:ReservedCodeCacheSize=16m -Xlog:disable -Xlog:all=warning:stderr ${EXTRA_OPTS:-}"

# Archives made by one training run each: the entry binds, hands over, announces, exits.
train() {
    unshare --net sh -c 'ip link set lo up && exec "$@"' sh \
        "$java" $tuned "$@" -cp "$jar" io.portcullis.entry.Main --relay "$sock" >/dev/null 2>"$work/train.log"
}
train -XX:ArchiveClassesAtExit="$work/entry.jsa"
train -XX:AOTCacheOutput="$work/entry.aot"

# One run, inside its own namespace: prints "ready_ms cpu_ms peak_rss_kib".
cat >"$work/one_run.py" <<'PY'
import os, subprocess, sys, time
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
start = time.monotonic_ns()
entry = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
entry.stdout.readline()
ready = time.monotonic_ns()
_, status, usage = os.wait4(entry.pid, 0)
if status != 0:
    sys.exit("entry exited with status %d" % status)
print("%.1f %d %d" % ((ready - start) / 1e6, (usage.ru_utime + usage.ru_stime) * 1000, usage.ru_maxrss))
PY

median() {  # median of column $1 of stdin
    cut -d' ' -f"$1" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}

names=()
opts=()
variant() {  # variant NAME JVM-OPTIONS...: registers one column of runs
    [ -z "${ONLY:-}" ] || [[ $1 =~ $ONLY ]] || return 0
    names+=("$1")
    shift
    opts+=("$*")
}

variant "JDK defaults"                    --enable-native-access=ALL-UNNAMED -Xlog:disable
variant "tuned, JDK's default CDS"        $tuned -Xshare:auto
variant "tuned + AppCDS archive"          $tuned -XX:SharedArchiveFile="$work/entry.jsa"
variant "tuned + AOT cache (JEP 483/514)" $tuned -XX:AOTCache="$work/entry.aot"

load=$(cut -d' ' -f1-3 /proc/loadavg)
# Interleaved, so that other load on the machine falls on every variant alike.
for ((r = 0; r < runs; r++)); do
    for i in "${!names[@]}"; do
        # shellcheck disable=SC2086 # the options are words
        unshare --net python3 "$work/one_run.py" "$java" ${opts[$i]} -cp "$jar" io.portcullis.entry.Main \
            --relay "$sock" >>"$work/runs.$i"
    done
done

echo "machine: $(nproc) cores, $(uname -sr), $("$java" -version 2>&1 | sed -n 2p)," \
    "load average at the start $load, at the end $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs"
echo
echo "| JVM options | start to ready, ms | CPU ms | peak RSS, MiB |"
echo "|---|---:|---:|---:|"
for i in "${!names[@]}"; do
    results=$(cat "$work/runs.$i")
    echo "| ${names[$i]} | $(median 1 <<<"$results") | $(median 2 <<<"$results")" \
        "| $(median 3 <<<"$results" | awk '{printf "%.1f", $1 / 1024}') |"
done
