# Sourced by ./portcullis and ./run-tests: finds a JDK 25 and exports JAVA_HOME.
# Order: $JAVA_HOME, then `java` on the PATH, then /usr/lib/jvm/*.

jdk_major() {  # jdk_major JAVA_HOME: prints the feature version, or nothing
    [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
    # A JDK's release file names its version (JAVA_VERSION="25.0.3"): read without starting a JVM,
    # which took a tenth of a second of every ./portcullis start.
    local line
    if [ -f "$1/release" ]; then
        while IFS= read -r line; do
            case $line in
                JAVA_VERSION=\"[0-9]*)
                    line=${line#JAVA_VERSION=\"}
                    echo "${line%%[!0-9]*}"
                    return 0
                    ;;
            esac
        done <"$1/release"
    fi
    # No hsperfdata file in /tmp for this probe either (launch.sh's jvm_hardening, decision D53).
    "$1/bin/java" -XX:-UsePerfData -XshowSettings:properties -version 2>&1 |
        sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p'
}

find_jdk25() {
    local candidate java
    if [ -n "${JAVA_HOME:-}" ] && [ "$(jdk_major "$JAVA_HOME")" = 25 ]; then
        return 0
    fi
    if java=$(command -v java 2>/dev/null); then
        candidate=$(dirname "$(dirname "$(readlink -f "$java")")")
        if [ "$(jdk_major "$candidate")" = 25 ]; then
            export JAVA_HOME=$candidate
            return 0
        fi
    fi
    for candidate in /usr/lib/jvm/*; do
        if [ "$(jdk_major "$candidate")" = 25 ]; then
            export JAVA_HOME=$candidate
            return 0
        fi
    done
    echo "portcullis: no JDK 25 found (looked at \$JAVA_HOME, java on the PATH, /usr/lib/jvm); install one, e.g. Temurin 25" >&2
    return 1
}
