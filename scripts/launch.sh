# Sourced by ./portcullis and by a distribution's bin/portcullis (scripts/dist.sh copies it there):
# how the CLI and the entry are started, the same in both. The caller sets:
#   java        the java program to run
#   cli_cp    the CLI's class path
#   entry_jar   the netns-entry jar
#   entry_aot   the entry's AOT cache (used when newer than entry_jar)
#   executable  the caller itself, through which run and demo start the entry

# Every JVM of ours starts with these, the CLI's (run's relay, the daemon, relay, check, ...) and the
# entry's: nothing can attach to it (jcmd, a debugger, the Attach API), no agent can be loaded into it
# while it runs, and it writes no hsperfdata file (which names it to jcmd and lies in a shared /tmp).
# They come last, after PORTCULLIS_JAVA_OPTS, so no option there turns them off (decision D53).
jvm_hardening=(-XX:+DisableAttachMechanism -XX:-EnableDynamicAgentLoading -XX:-UsePerfData)

# The entry runs once per spawn: JDK only, a small heap, C1 only, and every JVM message on stderr,
# because stdout carries the readiness line (docs/entry.md).
entry_opts=(--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss256k -Xms8m -Xmx32m
    -XX:ReservedCodeCacheSize=16m -Xlog:disable -Xlog:all=warning:stderr "${jvm_hardening[@]}")

# The entry's AOT cache (JEP 483/514) roughly halves its start-to-ready time (docs/benchmarks.md). It
# comes from one training run in a network namespace of its own, handing its sockets to a stand-in
# relay (train_entry STANDIN, STANDIN being scripts/standin-relay.py) and exiting once ready (an exec
# would leave no cache behind); without a namespace or python3, the entry runs without the cache.
# The cache belongs to the java that made it: a distribution trains it with its own runtime.
train_entry() {
    local standin_script=$1 tmp=$entry_aot.$$.tmp ns sock standin
    if unshare -rn true 2>/dev/null; then
        ns=(unshare -rn)
    elif unshare -n true 2>/dev/null; then
        ns=(unshare -n)
    else
        return 0
    fi
    command -v python3 >/dev/null || return 0
    sock=$(mktemp -u "${TMPDIR:-/tmp}/portcullis-train-XXXXXX.sock")
    python3 "$standin_script" "$sock" >/dev/null 2>&1 &
    standin=$!
    for _ in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.02; done
    rm -f "$tmp"
    # The stand-in checks no key; the entry needs one to start (any 64 hex digits do here).
    if PORTCULLIS_HANDOFF_KEY=0000000000000000000000000000000000000000000000000000000000000000 \
        "${ns[@]}" sh -c 'ip link set lo up && exec "$@"' sh "$java" "${entry_opts[@]}" \
        -XX:AOTCacheOutput="$tmp" -cp "$entry_jar" io.portcullis.entry.Main \
        --relay "$sock" >/dev/null 2>&1 && [ -s "$tmp" ]; then
        mv -f "$tmp" "$entry_aot"
    else
        rm -f "$tmp"
    fi
    kill "$standin" 2>/dev/null || true
    rm -f "$sock"
}

# launch ARGS...: `entry ...` runs the netns-entry jar; anything else is the CLI.
launch() {
    if [ "${1:-}" = entry ]; then
        shift
        if [ "$entry_aot" -nt "$entry_jar" ]; then
            entry_opts+=(-XX:AOTCache="$entry_aot")
        fi
        exec "$java" "${entry_opts[@]}" -cp "$entry_jar" io.portcullis.entry.Main "$@"
    fi
    # run and demo start the entry through the executable, with its options and start-up cache.
    # shellcheck disable=SC2086 # PORTCULLIS_JAVA_OPTS is a list of options
    exec "$java" --enable-native-access=ALL-UNNAMED ${PORTCULLIS_JAVA_OPTS:-} "${jvm_hardening[@]}" \
        -Dportcullis.executable="$executable" -cp "$cli_cp" io.portcullis.cli.Main "$@"
}
