#!/usr/bin/env bash
# Starts a Docker engine when none answers (root only) and imports the test images: busybox from
# the busybox-static package, and a glibc base (this host's glibc, bash, the few coreutils the
# distribution's launcher uses and what packaging/Dockerfile runs to build on it: mkdir, chown,
# chmod, ldconfig, setcap) that the image is built on in a test, since no base image can be pulled.
# A base made before it held all of those is made again. Prints nothing on success; exits non-zero
# with a reason.
set -euo pipefail
image=portcullis-busybox:latest

if ! docker info >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ] || ! command -v dockerd >/dev/null; then
        echo "ensure-docker: no Docker engine answers and this shell cannot start one (need root and dockerd)" >&2
        exit 1
    fi
    mkdir -p /var/log
    nohup dockerd >/var/log/portcullis-dockerd.log 2>&1 &
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
    docker info >/dev/null 2>&1 || { echo "ensure-docker: dockerd did not start; see /var/log/portcullis-dockerd.log" >&2; exit 1; }
fi

if ! docker image inspect "$image" >/dev/null 2>&1; then
    busybox=$(command -v busybox || true)
    [ -n "$busybox" ] || { echo "ensure-docker: busybox not found (apt-get install busybox-static)" >&2; exit 1; }
    rootfs=$(mktemp -d)
    trap 'rm -rf "$rootfs"' EXIT
    mkdir -p "$rootfs/bin"
    cp "$busybox" "$rootfs/bin/busybox"
    for applet in sh nc httpd sleep cat echo ls; do ln -s busybox "$rootfs/bin/$applet"; done
    tar -C "$rootfs" -c . | docker import - "$image" >/dev/null
fi

base=portcullis-glibc-base:latest
programs=(/bin/sh /bin/bash /usr/bin/env /usr/bin/readlink /usr/bin/dirname /bin/ln
    /usr/bin/mkdir /usr/bin/chown /usr/bin/chmod /usr/sbin/ldconfig /usr/sbin/setcap)
base_complete() {
    docker image inspect "$base" >/dev/null 2>&1 &&
        docker run --rm --network none --entrypoint /bin/bash "$base" \
            -c 'for p; do [ -x "$p" ] || exit 1; done' check "${programs[@]}" >/dev/null 2>&1
}
if ! base_complete; then
    for program in "${programs[@]}"; do
        [ -x "$program" ] || { echo "ensure-docker: $program not found (the glibc base needs it)" >&2; exit 1; }
    done
    base_rootfs=$(mktemp -d)
    trap 'rm -rf "${rootfs:-}" "$base_rootfs"' EXIT
    # What the programs and the JVM's own libraries link (libjvm: libc, libm, libdl, libpthread, librt).
    libs=$( { ldd "${programs[@]}"; ldconfig -p; } 2>/dev/null |
        grep -oE '/[^ ]*/(libc|libm|libdl|libpthread|librt|libtinfo|libcap|libselinux|libpcre2-8)\.so\.[0-9]+|/[^ ]*/ld-linux-x86-64\.so\.2' |
        sort -u)
    for file in "${programs[@]}" $libs; do
        mkdir -p "$base_rootfs$(dirname "$file")"
        cp -L "$file" "$base_rootfs$file"
    done
    mkdir -p "$base_rootfs/tmp" "$base_rootfs/etc" "$base_rootfs/usr/local/bin" "$base_rootfs/opt"
    chmod 1777 "$base_rootfs/tmp"
    echo 'root:x:0:0:root:/root:/bin/sh' >"$base_rootfs/etc/passwd"
    tar -C "$base_rootfs" -c . | docker import - "$base" >/dev/null
fi
