# Sourced by ./portcullis and by a distribution's bin/portcullis (scripts/dist.sh copies it there):
# how the CLI and the entry are started, the same in both. The caller sets:
#   java        the java program to run
#   cli_jar     the CLI's jar (its manifest names the jars beside it in lib/)
#   cli_aot     the CLI's AOT cache (used when it exists and the JVM finds it fits)
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

# The CLI's options by how long its JVM lives (decision D76). Every one takes the serial collector,
# whose set-up, threads and bookkeeping are the smallest, for a heap that stays small. A command that
# a person waits for (help, check, owner, run, demo) compiles with C1 alone: C2 would spend a core on
# code that a short command never runs long enough to use. The daemon and relay keep tiered
# compilation for their throughput, and start with a 16 MB heap that grows as it must, so an idle
# daemon holds no young generation that start-up filled once. PORTCULLIS_JAVA_OPTS comes after these
# and wins (-XX:TieredStopAtLevel=4, -Xms...); a collector it names replaces ours.
# The daemon and relay also let Netty use sun.misc.Unsafe, which JDK 25 denies it unless asked: its
# direct buffers and native transport's addresses then skip the checks of the safe path (decision
# D94: a tunnel's request/response p99 fell to a quarter). The option is JDK 25's; a JDK without it
# is not one this launcher starts (scripts/jdk.sh finds a 25), and Netty runs without Unsafe where
# it is denied.
# The daemon, which carries every spawn's tunnels in one process, gives its young generation 64 MB
# from the start (decision D99): a 16 MB heap keeps the serial collector's young generation at about
# 5 MB, and under thousands of new tunnels a second that cost a fifth of the new-tunnel rate at c=16.
# An idle daemon then holds about 40 MB more. `relay`, one process per spawn, keeps the small heap.
# A heap size named in PORTCULLIS_JAVA_OPTS (or the JDK's variables) replaces these heap options
# whole: a cap of -Xmx64m beside our -Xms96m would stop the JVM.
# Every CLI JVM starts with Netty's JFR events off (decision D100): with them on, the first buffer
# a process takes registers Netty's allocator events with JFR, which is no part of the AOT cache and
# cost about 50 ms of each `run` (and of the daemon's first tunnel), recording or not. An operator who
# records Netty's events sets -Dio.netty.jfr.enabled=true in PORTCULLIS_JAVA_OPTS, which comes later.
# SLF4J is told its provider, our JSON log, so that it does not open every jar of the class path to
# look for one (the CLI's manifest puts the jars that start-up reads first, cli/pom.xml).
# run and demo, whose relay carries the spawn's tunnels as the daemon's does, let Netty use
# sun.misc.Unsafe as the daemon does (D94); it also spares them linking Netty's foreign allocator.
common_opts=(-Dio.netty.jfr.enabled=false -Dslf4j.provider=io.portcullis.log.JsonLogProvider -Dslf4j.internal.verbosity=WARN)
person_opts=(-XX:TieredStopAtLevel=1)
service_opts=(--sun-misc-unsafe-memory-access=allow)
relay_heap=(-Xms16m)
daemon_heap=(-Xms96m -Xmn64m)

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

# The CLI's AOT cache (JEP 483/514/515, decision D74): the classes that --help, check, relay, run
# and the daemon load, loaded and linked ahead of time, and the profiles of their methods, from one
# training run (train_cli, io.portcullis.cli.StartUpTraining) by the java that reads it. The JVM
# checks it against its own options and starts without it when it does not fit; -Xlog:aot=off,cds=off
# keeps that silent, so a missing, damaged or unfitting cache changes nothing but the time a start
# takes. The jars are checked here (aot_cache_allowed): JDK 25 took a rebuilt jar's classes from a
# cache made before the rebuild, so a cache older than any jar of the class path is not given.
train_cli() {
    local tmp=$cli_aot.$$.tmp dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/portcullis-train-XXXXXX") || return 0
    rm -f "$tmp"
    # Trained with the options of run, relay and the daemon, so the cache holds the Netty classes they
    # load (its Unsafe paths among them); help and check load few of those.
    if timeout 600 "$java" --enable-native-access=ALL-UNNAMED "${service_opts[@]}" "${common_opts[@]}" \
        "${jvm_hardening[@]}" -XX:AOTCacheOutput="$tmp" \
        -Dportcullis.executable="$executable" -cp "$cli_jar" io.portcullis.cli.StartUpTraining "$dir" \
        </dev/null >/dev/null 2>&1 && [ -s "$tmp" ]; then
        mv -f "$tmp" "$cli_aot"
    else
        rm -f "$tmp"
    fi
    rm -rf "$dir"
}

# The JVM refuses to start when -XX:AOTCache meets -Xshare or a class data archive of one's own, and a
# cache asked for by name is the asker's: with any of them in the options, the CLI's cache is not given.
aot_cache_allowed() {
    case " ${PORTCULLIS_JAVA_OPTS:-} ${JDK_JAVA_OPTIONS:-} ${JAVA_TOOL_OPTIONS:-} " in
        *-Xshare* | *SharedArchiveFile* | *ArchiveClassesAtExit* | *SharedClassListFile* | *DumpLoadedClassList* | *AOTCache* | *AOTMode* | *AOTConfiguration*)
            return 1 ;;
    esac
    [ -f "$cli_aot" ] && [ -z "$(find "$cli_jar" "${cli_jar%/*}/lib" -name '*.jar' -newer "$cli_aot" -print -quit 2>/dev/null)" ]
}

# cli_opts ARGS...: the CLI's JVM options for what ARGS start (decision D76), in cli_opts.
cli_opts() {
    local arg kind=${1:-help} gc=(-XX:+UseSerialGC) heap=() opt
    for arg in "$@"; do
        case $arg in
            --) break ;;
            -h | --help | -V | --version) kind=help ;;
        esac
    done
    case $kind in
        daemon) cli_opts=("${service_opts[@]}") heap=("${daemon_heap[@]}") ;;
        relay) cli_opts=("${service_opts[@]}") heap=("${relay_heap[@]}") ;;
        run | demo) cli_opts=("${person_opts[@]}" "${service_opts[@]}") ;;
        *) cli_opts=("${person_opts[@]}") ;;
    esac
    cli_opts+=("${common_opts[@]}")
    # shellcheck disable=SC2086 # lists of options
    for opt in ${PORTCULLIS_JAVA_OPTS:-} ${JDK_JAVA_OPTIONS:-} ${JAVA_TOOL_OPTIONS:-}; do
        case $opt in
            -XX:+Use*GC) gc=() ;;
            -Xmx* | -Xms* | -Xmn* | -XX:MaxHeapSize=* | -XX:InitialHeapSize=* | -XX:NewSize=* | -XX:MaxNewSize=* | -XX:MaxRAMPercentage=*) heap=() ;;
        esac
    done
    cli_opts+=("${gc[@]}" "${heap[@]}")
    # Help and the version are texts in the jar (decision D75): the cache's thousands of classes, all
    # loaded at start, would only slow them down.
    if [ "$kind" != help ] && aot_cache_allowed; then
        cli_opts+=(-XX:AOTCache="$cli_aot" -XX:AOTMode=auto -Xlog:aot=off,cds=off)
    fi
}

# entry_argv: the entry's JVM command line up to its own options, in entry_argv: its options, its
# start-up cache when fresh, its jar.
entry_argv() {
    entry_argv=("$java" "${entry_opts[@]}")
    if [ "$entry_aot" -nt "$entry_jar" ]; then
        entry_argv+=(-XX:AOTCache="$entry_aot")
    fi
    entry_argv+=(-cp "$entry_jar" io.portcullis.entry.Main)
}

# launch ARGS...: `entry ...` runs the netns-entry jar; anything else is the CLI.
launch() {
    entry_argv
    if [ "${1:-}" = entry ]; then
        shift
        exec "${entry_argv[@]}" "$@"
    fi
    cli_opts "$@"
    # run and demo start the entry as `entry` above would, the same command line given to the CLI
    # whole (one word a line), so that the sandbox runs the entry's JVM with no second start of this
    # script inside it (decision D100); through the executable when a word holds a line break.
    local word entry_lines
    printf -v entry_lines '%s\n' "${entry_argv[@]}"
    for word in "${entry_argv[@]}"; do
        case $word in *$'\n'*) entry_lines= && break ;; esac
    done
    # shellcheck disable=SC2086 # PORTCULLIS_JAVA_OPTS is a list of options
    exec "$java" --enable-native-access=ALL-UNNAMED "${cli_opts[@]}" ${PORTCULLIS_JAVA_OPTS:-} "${jvm_hardening[@]}" \
        -Dportcullis.executable="$executable" -Dportcullis.entry="${entry_lines%$'\n'}" \
        -cp "$cli_jar" io.portcullis.cli.Main "$@"
}
