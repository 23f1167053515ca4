#!/usr/bin/env bash
# dist.sh [OUTDIR]: the self-contained distribution, OUTDIR/portcullis-VERSION-linux-x86_64.tar.gz
# (default OUTDIR: target/dist). It holds a Java runtime of its own (jlink), the jars, the entry's
# AOT cache trained with that runtime, bin/portcullis, the manual pages, the bash completion and the
# systemd unit: a host runs it with no JDK and no Maven (docs/operations.md#installing-the-distribution).
# Building it needs what ./portcullis needs (a JDK 25 and Maven) and prints the tarball's path.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
out=$(realpath -m "${1:-$root/target/dist}")
. "$root/scripts/jdk.sh"
find_jdk25 || exit 2

version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$root/pom.xml" | head -n 1)
name=portcullis-$version
tarball=$out/$name-linux-x86_64.tar.gz
work=$(mktemp -d "${TMPDIR:-/tmp}/portcullis-dist-XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/$name
home=$stage/lib/portcullis

say() { echo "dist: $*" >&2; }

# The jars: ./portcullis builds them when missing or stale, as it does before any command.
"$root/portcullis" --version >/dev/null
cli_jar=$root/cli/target/portcullis.jar
entry_jar=$root/netns-entry/target/netns-entry.jar

# The runtime: the modules jdeps finds in the CLI's class path (the entry needs java.base alone),
# and two that the JDK finds at run time by name or service lookup, which jdeps cannot see: jdk.net
# (java.base loads it for the extended socket options, such as a unix socket's peer credentials)
# and jdk.naming.dns (JNDI's DNS provider, Netty's resolver's way to the name servers when
# /etc/resolv.conf gives none). Decision D40.
say "runtime (jlink)"
# Every jar is analysed as a module (the CLI's and the engine's are modular, the rest named or
# automatic); of what they need, the JDK's own modules go into the runtime.
modules=$("$JAVA_HOME/bin/jdeps" --multi-release 25 --ignore-missing-deps --print-module-deps \
    --module-path "$root/cli/target/lib" --add-modules ALL-MODULE-PATH "$root"/cli/target/lib/*.jar "$cli_jar" |
    tr , '\n' | grep -E '^(java|jdk)\.' | paste -sd, -)
modules=$modules,jdk.net,jdk.naming.dns
mkdir -p "$home"
"$JAVA_HOME/bin/jlink" --add-modules "$modules" --output "$home/runtime" \
    --strip-debug --no-man-pages --no-header-files --compress=zip-6 --generate-cds-archive >&2
# The CDS archive for heaps over 32 GB (no compressed oops): a relay never needs one that large.
rm -f "$home/runtime/lib/server/classes_nocoops.jsa"

cp "$cli_jar" "$home/portcullis.jar"
cp -r "$root/cli/target/lib" "$home/lib"
cp "$entry_jar" "$home/netns-entry.jar"
# The entry's manifest names the hand-over's jar beside it.
cp "$root/netns-entry/target/wire.jar" "$home/wire.jar"
cp "$root/scripts/launch.sh" "$home/launch.sh"
install -D -m 0755 "$root/packaging/portcullis" "$stage/bin/portcullis"
# The container image's entry point (packaging/Dockerfile): the image is built from this tarball.
install -m 0755 "$root/packaging/container-entrypoint" "$home/container-entrypoint"

# The entry's AOT cache, made by the runtime that will read it (launch.sh's train_entry).
say "the entry's AOT cache"
java=$home/runtime/bin/java
entry_jar=$home/netns-entry.jar
entry_aot=$home/netns-entry.aot
. "$root/scripts/launch.sh"
train_entry "$root/scripts/standin-relay.py"
[ -s "$entry_aot" ] || say "no AOT cache (no network namespace or no python3 here); the entry starts without it"

# Manual pages and bash completion, from the CLI's picocli model (packaging/docgen).
say "manual pages and bash completion"
(cd "$root" && mvn -B -q -f packaging/docgen/pom.xml dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$work/docgen") >"$work/docgen.log" 2>&1 || { cat "$work/docgen.log" >&2; exit 2; }
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$cli_jar:$root/cli/target/lib/*:$work/docgen/*" \
    "$root/packaging/docgen/DocGen.java" "$work/docs" >"$work/docgen.log" 2>&1 || { cat "$work/docgen.log" >&2; exit 2; }
install -D -m 0644 -t "$stage/share/man/man1" "$work/docs/man1/"*.1
install -D -m 0644 "$work/docs/bash-completion/portcullis" "$stage/share/bash-completion/completions/portcullis"

install -D -m 0644 "$root/packaging/portcullis-daemon.service" "$stage/lib/systemd/system/portcullis-daemon.service"
install -D -m 0644 -t "$stage/share/doc/portcullis" "$root/README.md" "$root/docs/operations.md" \
    "$root/packaging/Dockerfile"

mkdir -p "$out"
tar -C "$work" -czf "$tarball.tmp" "$name"
mv -f "$tarball.tmp" "$tarball"
say "$(du -h "$tarball" | cut -f1) $tarball"
echo "$tarball"
