#!/usr/bin/env bash
# Starts a Docker engine when none answers (root only) and imports the busybox test image
# from the busybox-static package. Prints nothing on success; exits non-zero with a reason.
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
