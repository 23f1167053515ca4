#!/usr/bin/env bash
# bench/tunnel-cpu.sh [ROOT...]: CPU time per new CONNECT tunnel in the relay and the entry, read from
# /proc, for one or more built Portcullis trees (default: this one), in interleaved rounds. The entry
# runs `sleep` as its command: a one-hop entry becomes it (the entry column is then the command's, 0),
# an older two-process entry stays beside it and carries every byte.
#   bench/tunnel-cpu.sh                         # this tree
#   bench/tunnel-cpu.sh /path/to/older .        # before/after: rounds alternate between the trees,
#                                               # in the opposite order every other round
#   bench/tunnel-cpu.sh . netty-floor           # beside the harness's Netty floor, measured the same way
#                                               # (its process in the relay column; built by bench-peers/setup.sh)
# Root only: the relay, the entry, the origin and the load run as the unprivileged user that
# bench/run-peers makes, whose uid the host configuration names as the gateway's, so the owner check
# runs on every tunnel (a cached answer, as in the harness). Everything is on loopback and bounded.
# ROUNDS (4), CONCURRENCY ("1 16"), WARM seconds of new tunnels at c=4 before measuring (25),
# SECS per measured window (3), PERFSTAT=1 also counts the relay's system calls (perf stat; slower),
# PERFSTAT=entry the entry's instead, THREADS=1 also splits the relay's CPU time by thread, PERFREC=DIR
# also samples the relay's stacks (perf record -g, with the JIT's symbols) into DIR/LABEL-cC.data, a flat profile in .txt
# (PORTCULLIS_JAVA_OPTS=-XX:+PreserveFramePointer gives whole Java stacks; the figures are then slower;
# the JIT's symbols come from -XX:+DumpPerfMapAtExit, since the relay refuses an attach).
# BENCH_FLOORS: where setup.sh built the floors (default /var/cache/bench-peers/floors).
# BENCH_PEERS: the harness folder (default: ../shared/bench-peers beside this repository).
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
peers=${BENCH_PEERS:-$here/../shared/bench-peers}
user=portcullis-bench
rounds=${ROUNDS:-4} concurrency=${CONCURRENCY:-"1 16"} warm=${WARM:-25} secs=${SECS:-3}
[ "$(id -u)" = 0 ] || { echo "tunnel-cpu: run as root (it runs the parts as $user)" >&2; exit 2; }
[ -f "$peers/src/loadgen.c" ] || { echo "tunnel-cpu: no harness at $peers (set BENCH_PEERS)" >&2; exit 2; }
id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
floors=${BENCH_FLOORS:-/var/cache/bench-peers/floors}
roots=()
for r in "${@:-$here}"; do
    if [ "$r" = netty-floor ]; then
        [ -x "$floors/bin/netty-floor" ] || { echo "tunnel-cpu: no netty-floor in $floors (run bench-peers/setup.sh)" >&2; exit 2; }
        roots+=(netty-floor)
        continue
    fi
    r=$(cd "$r" && pwd)
    "$r/portcullis" --help >/dev/null   # builds as root when stale; the user only reads the tree
    roots+=("$r")
done

if [ -n "${PERFREC:-}" ]; then  # the JIT's symbols at exit, for perf report
    export PORTCULLIS_JAVA_OPTS="${PORTCULLIS_JAVA_OPTS:-} -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"
    export PERF_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"
fi

work=$(mktemp -d)
chmod 755 "$work"
for t in origin loadgen; do gcc -O2 -o "$work/$t" "$peers/src/$t.c"; done
as_user=(setpriv --reuid "$user" --regid "$user" --init-groups)
pids=()
stop() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    pids=()
}
trap 'stop; rm -rf "$work"' EXIT

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }   # user + system ticks of the whole process
threads() {  # per kind of thread of process $1: name, user and system ticks, context switches, count
    local t
    for t in /proc/"$1"/task/*; do  # a thread's name may hold spaces: its fields start after the ")"
        awk -v n="$(tr ' ' _ <"$t/comm" 2>/dev/null | sed 's/[0-9]*$//')" '
            FILENAME ~ /stat$/ { sub(/^.*\) /, ""); u = $12; s = $13; next }
            /ctxt_switches/ { c += $2 }
            END { if (u != "") print n, u, s, c + 0 }' "$t/stat" "$t/status" 2>/dev/null
    done | awk '{u[$1] += $2; s[$1] += $3; c[$1] += $4; k[$1]++}
        END {for (n in u) print n, u[n], s[n], c[n], k[n]}' | sort
}
loops() {  # user and system ticks of the relay's event loop threads
    local t
    for t in /proc/"$1"/task/*; do
        case "$(cat "$t/comm" 2>/dev/null)" in multiThreadIoEv*) awk '{print $14, $15}' "$t/stat" 2>/dev/null ;; esac
    done | awk '{u += $1; s += $2} END {print u + 0, s + 0}'
}

# one ROOT LABEL C: start origin, relay and entry, warm up, measure one window of new tunnels at c=C
one() {
    local root=$1 label=$2 c=$3 dir port origin socket relay entry i
    dir=$(mktemp -d "$work/run.XXXX")
    chown "$user:" "$dir"
    "${as_user[@]}" "$work/origin" --host 127.0.0.1 --port 0 --port-file "$dir/origin.port" >"$dir/origin.log" 2>&1 &
    pids+=($!)
    for i in $(seq 50); do [ -s "$dir/origin.port" ] && break; sleep 0.1; done
    origin=127.0.0.1:$(cat "$dir/origin.port")
    port=$("$work/loadgen" freeport)
    printf '{"id": "bench", "network": "listed", "proxyPort": %s, "hosts": [{"target": "%s", "scheme": "tcp"}]}\n' \
        "$port" "$origin" >"$dir/spawn.json"
    # the load opens thousands of tunnels a second from one spawn: the per-spawn rate is raised out of its way;
    # the entry is this script's, of the relay's uid and pid namespace, which a wall's must not be (D69),
    # so a tree that checks that is told to allow it
    local handoff=""
    ! grep -q allowSharedPidNamespace "$root/relay/src/main/java/io/portcullis/relay/config/HostConfigJson.java" 2>/dev/null ||
        handoff=', "handoff": {"allowSharedPidNamespace": true}'
    printf '{"log": {"file": "%s/decisions.jsonl"}, "owner": {"gatewayUid": %s}, "limits": {"spawnRate": 1000000, "spawnBurst": 1000000}%s}\n' \
        "$dir" "$(id -u "$user")" "$handoff" >"$dir/host.json"
    if [ "$root" = netty-floor ]; then  # as the harness's netty-floor.peer starts it
        "${as_user[@]}" env FLOOR_JAVA_OPTS="--sun-misc-unsafe-memory-access=allow ${PERF_JAVA_OPTS:-}" \
            "$floors/bin/netty-floor" "$port" --loops 2 --allow "$origin" >"$dir/relay.log" 2>&1 &
        relay=$!
        pids+=($relay)
        entry=$relay
        exec 7>/dev/null
    else
    mkfifo "$dir/lifeline"
    "${as_user[@]}" "$root/portcullis" relay --spawn "$dir/spawn.json" --host "$dir/host.json" --dir "$dir" \
        <"$dir/lifeline" >"$dir/relay.log" 2>&1 &
    relay=$!
    pids+=($relay)
    exec 7>"$dir/lifeline"
    for i in $(seq 300); do
        socket=$(sed -n 's/.*"socket":"\([^"]*\)".*/\1/p' "$dir/relay.log" | head -n1)
        [ -n "$socket" ] && break
        sleep 0.1
    done
    # the spawn's key goes in the entry's environment, never on its command line
    PORTCULLIS_HANDOFF_KEY=$(sed -n 's/.*"handoffKey":"\([0-9a-f]*\)".*/\1/p' "$dir/relay.log" | head -n1) \
        "${as_user[@]}" "$root/portcullis" entry --relay "$socket" --proxy-port "$port" -- sleep 100000 \
        >"$dir/entry.log" 2>&1 &
    entry=$!
    pids+=($entry)
    fi
    local load=("${as_user[@]}" "$work/loadgen")
    local to=(--target "$origin" --proxy "127.0.0.1:$port")
    for i in $(seq 100); do "${load[@]}" probe "${to[@]}" --seconds 1 >/dev/null 2>&1 && break; sleep 0.1; done
    "${load[@]}" new --concurrency 4 --count 10000000 --seconds "$warm" "${to[@]}" >/dev/null
    "${load[@]}" rr --conns 1 --count 10000000 --seconds 3 "${to[@]}" >/dev/null
    local r0 e0 l0 r1 e1 l1 out n perf=()
    if [ -n "${PERFSTAT:-}" ]; then
        local traced=$relay
        [ "$PERFSTAT" != entry ] || traced=$entry
        perf stat -e 'syscalls:sys_enter_*' -e context-switches -p "$traced" -o "$dir/perf.txt" -- sleep "$secs" &
        perf=($!)
    elif [ -n "${PERFREC:-}" ]; then
        perf record -q -F 2999 -g -p "$relay" -o "$dir/perf.data" -- sleep "$secs" 2>/dev/null &
        perf=($!)
    fi
    [ -z "${THREADS:-}" ] || threads "$relay" >"$dir/threads0"
    r0=$(cpu "$relay") e0=$(cpu "$entry") l0=$(loops "$relay")
    out=$("${load[@]}" new --concurrency "$c" --count 10000000 --seconds "$secs" "${to[@]}")
    r1=$(cpu "$relay") e1=$(cpu "$entry") l1=$(loops "$relay")
    [ "$entry" != "$relay" ] || e1=$e0
    [ -z "${THREADS:-}" ] || threads "$relay" >"$dir/threads1"
    [ ${#perf[@]} = 0 ] || wait "${perf[0]}"
    n=$(sed -n 's/.*"count":\([0-9]*\).*/\1/p' <<<"$out")
    awk -v label="$label" -v c="$c" -v n="$n" -v out="$out" -v r="$((r1 - r0))" -v e="$((e1 - e0))" \
        -v l0="$l0" -v l1="$l1" -v hz="$(getconf CLK_TCK)" 'BEGIN {
            split(l0, a, " "); split(l1, b, " "); us = 1e6 / hz / n
            match(out, /"tps":[0-9.]+/); tps = substr(out, RSTART + 6, RLENGTH - 6)
            match(out, /"errors":[0-9]+/); err = substr(out, RSTART + 9, RLENGTH - 9)
            printf "%-12s c=%-3s tunnels=%-6d per s=%-7.0f errors=%s  us/tunnel: relay %4.0f (loops user %3.0f sys %3.0f)  entry %4.0f\n",
                label, c, n, tps, err, r * us, (b[1] - a[1]) * us, (b[2] - a[2]) * us, e * us }'
    if [ -n "${THREADS:-}" ]; then  # threads that used CPU or switched more than once per ten tunnels
        join -a2 -e0 -o 2.1,1.2,1.3,1.4,2.2,2.3,2.4,2.5 "$dir/threads0" "$dir/threads1" |
            awk -v n="$n" -v hz="$(getconf CLK_TCK)" '{ us = 1e6 / hz / n
                if ($5 + $6 > $2 + $3 || $7 - $4 > n / 10)
                    printf "    relay %-18s x%-3d user %4.0f sys %4.0f us/tunnel, %5.2f context switches/tunnel\n",
                        $1, $8, ($5 - $2) * us, ($6 - $3) * us, ($7 - $4) / n }'
    fi
    exec 7>&-
    stop
    if [ -n "${PERFREC:-}" ]; then  # the JIT's symbols, written at exit as the relay's user to /tmp/perf-PID.map
        for i in $(seq 50); do [ -s "/tmp/perf-$relay.map" ] && break; sleep 0.1; done
        chown root: "/tmp/perf-$relay.map" 2>/dev/null || true  # perf reads only its own user's maps
        mkdir -p "$PERFREC"
        mv "$dir/perf.data" "$PERFREC/$label-c$c.data"
        perf report -i "$PERFREC/$label-c$c.data" --no-children --sort dso,sym -g none --stdio 2>/dev/null \
            >"$PERFREC/$label-c$c.txt" || true
    fi
    if [ -n "${PERFSTAT:-}" ]; then
        awk -v n="$n" '/syscalls:sys_enter_|context-switches/ { gsub(",", "", $1); sub("syscalls:sys_enter_", "", $2)
            if ($1 > 0) printf "    %-30s %6.2f per tunnel\n", $2, $1 / n }' \
            "$dir/perf.txt" | sort -k2 -nr | head -16
    fi
}

# Every run leaves tens of thousands of loopback connections in TIME_WAIT, which slow the next run's
# connects (c=1 showed it most: the second tree of a round lost a third of its rate), so the trees'
# order turns round every round.
for round in $(seq "$rounds"); do
    order=("${!roots[@]}")
    if [ $((round % 2)) = 0 ]; then
        order=()
        for ((i = ${#roots[@]} - 1; i >= 0; i--)); do order+=("$i"); done
    fi
    for c in $concurrency; do
        for i in "${order[@]}"; do
            one "${roots[$i]}" "$(basename "${roots[$i]}")" "$c"
        done
    done
done
