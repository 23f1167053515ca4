#!/usr/bin/env bash
# dist.sh [OUTDIR]: the self-contained distribution (default OUTDIR: target/dist), as
#   OUTDIR/portcullis-VERSION-linux-x86_64.tar.gz   for any prefix (/usr/local: the paths its files name)
#   OUTDIR/portcullis_DEBVERSION_amd64.deb          the same files laid out for /usr, with the daemon's
#                                                   user and unit (packaging/deb)
#   OUTDIR/SHA256SUMS                               both artefacts' SHA-256, for sha256sum -c
# Each holds a Java runtime of its own (jlink), the jars, the entry's and the command line's AOT
# caches trained with that runtime, bin/portcullis, the manual pages (sections 1 and 5), bash and zsh completion, the systemd
# unit, the documentation and its example files: a host runs it with no JDK and no Maven
# (docs/operations.md#installing-the-distribution). Building it needs what ./portcullis needs (a JDK
# 25 and Maven), strip (binutils) and dpkg-deb; it prints each artefact's path.
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
# /etc/resolv.conf gives none). Decision D40. Less java.desktop (with java.datatransfer and
# java.prefs, 15 MB): what names it is code Portcullis never runs (JNA's AWT window ids, ICU's Bidi
# over AWT text attributes, the Pack200 and circuit breaker listeners of two Commons libraries) or
# code that looks for it and does without (Jackson's java.beans annotations). Decision D72.
say "runtime (jlink)"
# Every jar is analysed as a module (the CLI's and the engine's are modular, the rest named or
# automatic); of what they need, the JDK's own modules go into the runtime.
modules=$("$JAVA_HOME/bin/jdeps" --multi-release 25 --ignore-missing-deps --print-module-deps \
    --module-path "$root/cli/target/lib" --add-modules ALL-MODULE-PATH "$root"/cli/target/lib/*.jar "$cli_jar" |
    tr , '\n' | grep -E '^(java|jdk)\.' | grep -vx java.desktop | paste -sd, -)
modules=$modules,jdk.net,jdk.naming.dns
mkdir -p "$home"
"$JAVA_HOME/bin/jlink" --add-modules "$modules" --output "$home/runtime" \
    --strip-debug --no-man-pages --no-header-files --compress=zip-6 --generate-cds-archive >&2
# The CDS archive for heaps over 32 GB (no compressed oops): a relay never needs one that large.
rm -f "$home/runtime/lib/server/classes_nocoops.jsa"
# The runtime's native code without its symbol tables (5 MB of libjvm.so alone), as Debian strips
# what it ships; a crash report still names the exported functions. Before the AOT training below.
if command -v strip >/dev/null; then
    find "$home/runtime" -type f -print0 |
        while IFS= read -r -d '' file; do
            [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = "177ELF" ] && strip --strip-unneeded "$file"
        done
else
    say "no strip here (binutils): the runtime keeps its symbol tables"
fi

cp "$cli_jar" "$home/portcullis.jar"
cp -r "$root/cli/target/lib" "$home/lib"
cp "$entry_jar" "$home/netns-entry.jar"
# The entry's manifest names the hand-over's jar beside it.
cp "$root/netns-entry/target/wire.jar" "$home/wire.jar"
cp "$root/scripts/launch.sh" "$home/launch.sh"
install -D -m 0755 "$root/packaging/portcullis" "$stage/bin/portcullis"
# The container image's entry point (packaging/Dockerfile): the image is built from this tarball.
install -m 0755 "$root/packaging/container-entrypoint" "$home/container-entrypoint"
install -m 0755 "$root/packaging/container-healthcheck" "$home/container-healthcheck"

# The entry's AOT cache, made by the runtime that will read it (launch.sh's train_entry).
say "the entry's AOT cache"
java=$home/runtime/bin/java
entry_jar=$home/netns-entry.jar
entry_aot=$home/netns-entry.aot
. "$root/scripts/launch.sh"
train_entry "$root/scripts/standin-relay.py"
[ -s "$entry_aot" ] || say "no AOT cache (no network namespace or no python3 here); the entry starts without it"

# The command line's AOT cache (decision D74), made by the same runtime from the staged files, which
# run's training starts the entry through; it maps wherever the tree is unpacked.
say "the command line's AOT cache"
cli_jar=$home/portcullis.jar
cli_aot=$home/portcullis.aot
executable=$stage/bin/portcullis
train_cli
[ -s "$cli_aot" ] || say "no AOT cache for the command line; it starts without it"

# Manual pages and completion, from the CLI's picocli model and the entry's own help
# (packaging/docgen); the section-5 pages of the two JSON formats are kept in packaging/man. The
# paths that the pages and the unit name are those of the tarball unpacked into /usr/local; the
# .deb's copies name /usr (packaging/deb/build).
say "manual pages and completion"
docdir=/usr/local/share/doc/portcullis
(cd "$root" && mvn -B -q -f packaging/docgen/pom.xml dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$work/docgen") >"$work/docgen.log" 2>&1 || { cat "$work/docgen.log" >&2; exit 2; }
"$java" -cp "$entry_jar" io.portcullis.entry.Main --help >"$work/entry-help.txt"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$cli_jar:$root/cli/target/lib/*:$work/docgen/*" \
    "$root/packaging/docgen/DocGen.java" "$work/docs" "$work/entry-help.txt" "$docdir" >"$work/docgen.log" 2>&1 ||
    { cat "$work/docgen.log" >&2; exit 2; }
install -D -m 0644 -t "$stage/share/man/man1" "$work/docs/man1/"*.1
install -D -m 0644 -t "$stage/share/man/man5" "$root/packaging/man/"*.5
install -D -m 0644 "$work/docs/bash-completion/portcullis" "$stage/share/bash-completion/completions/portcullis"
# Debian's zsh reads /usr/local/share/zsh/site-functions; the .deb puts it in vendor-completions.
install -D -m 0644 "$work/docs/zsh/_portcullis" "$stage/share/zsh/site-functions/_portcullis"

install -D -m 0644 "$root/packaging/portcullis-daemon.service" "$stage/lib/systemd/system/portcullis-daemon.service"
# The documentation beside each other as in docs/, with the example files the pages name; the
# README's links to docs/ point beside it.
install -D -m 0644 -t "$stage/share/doc/portcullis" "$root"/docs/*.md "$root/packaging/Dockerfile"
install -D -m 0644 -t "$stage/share/doc/portcullis/examples" "$root"/docs/examples/*
sed 's#](docs/#](#g' "$root/README.md" >"$stage/share/doc/portcullis/README.md"
chmod 0644 "$stage/share/doc/portcullis/README.md"

mkdir -p "$out"
tar -C "$work" -czf "$tarball.tmp" "$name"
mv -f "$tarball.tmp" "$tarball"
say "$(du -h "$tarball" | cut -f1) $tarball"
echo "$tarball"

# The .deb: the same files for /usr, with the user, the unit and the conffile (packaging/deb).
# A SNAPSHOT version sorts before its release: 0.1.0-SNAPSHOT is 0.1.0~snapshot.
deb_version=$(echo "$version" | sed 's/-SNAPSHOT$/~snapshot/; s/-/~/g')
deb=$out/portcullis_${deb_version}_amd64.deb
rm -f "$out"/portcullis_*_amd64.deb
if command -v dpkg-deb >/dev/null; then
    say "the .deb"
    "$root/packaging/deb/build" "$stage" "$deb_version" "$deb" >&2
    say "$(du -h "$deb" | cut -f1) $deb"
    echo "$deb"
else
    say "no dpkg-deb here: no .deb"
fi

# SHA-256 of every artefact, beside them: sha256sum -c SHA256SUMS in OUTDIR checks them.
(cd "$out" && sha256sum -- "$(basename "$tarball")" $( [ -f "$deb" ] && basename "$deb") >SHA256SUMS.tmp &&
    mv -f SHA256SUMS.tmp SHA256SUMS)
echo "$out/SHA256SUMS"
