#!/usr/bin/env bash
# ensure-debian.sh: makes, once, the Docker image portcullis-debian:trixie that the .deb's test
# installs the package into (DebianPackageTest): a minimal Debian 13 root made by debootstrap from
# the Debian mirror this machine's apt uses, with dpkg, passwd and the .deb's dependencies, systemd
# to boot as the container's pid 1, and man-db (systemd-analyze verify asks man for the unit's
# pages). Cached by its tag, and made again when an older one lacks a program of that list; a
# second caller waits for the first (flock). About two minutes on a fresh machine (debootstrap, bounded to 15); prints nothing on
# success and exits non-zero with a reason. Needs root, Docker and debootstrap (apt-get installs it
# when missing).
set -euo pipefail
image=portcullis-debian:trixie
suite=trixie
say() { echo "ensure-debian: $*" >&2; }

[ "$(id -u)" = 0 ] || { say "needs root (debootstrap)"; exit 1; }
docker info >/dev/null 2>&1 || { say "no Docker engine answers (scripts/ensure-docker.sh starts one)"; exit 1; }

exec 9>/var/tmp/portcullis-ensure-debian.lock
flock -w 1200 9 || { say "another build of $image did not end within 20 minutes"; exit 1; }
programs=(dpkg useradd usermod systemctl deb-systemd-helper man /bin/kill)
complete() {
    docker image inspect "$image" >/dev/null 2>&1 &&
        docker run --rm --network none --entrypoint /bin/sh "$image" \
            -c 'for p; do command -v "$p" >/dev/null || exit 1; done' check "${programs[@]}" >/dev/null 2>&1
}
complete && exit 0
docker rmi -f "$image" >/dev/null 2>&1 || true

if ! command -v debootstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
        { say "debootstrap is missing and apt-get could not install it"; exit 1; }
fi
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -E '^[[:space:]]*(deb|URIs:)[[:space:]]' | grep -oE 'https?://[^[:space:]]+/debian/?([[:space:]]|$)' |
    tr -d '[:space:]' | head -n 1 || true)
mirror=${mirror:-http://deb.debian.org/debian}

root=$(mktemp -d /var/tmp/portcullis-debian-root.XXXXXX)
trap 'rm -rf "$root" "$root.log"' EXIT
# minbase has dpkg and passwd (useradd); procps is the .deb's dependency (/bin/kill, the unit's
# ExecReload); systemd boots the container so that the package's scripts see a running systemd.
if ! timeout 900 debootstrap --variant=minbase --include=systemd,systemd-sysv,procps,man-db \
    "$suite" "$root" "$mirror" >"$root.log" 2>&1; then
    tail -n 20 "$root.log" >&2
    say "debootstrap $suite from $mirror failed or took over 15 minutes"
    exit 1
fi
# A quiet boot in a container: no getty, no timers, no kernel modules; each boot its own machine id.
for unit in console-getty.service getty.target apt-daily.timer apt-daily-upgrade.timer \
    dpkg-db-backup.timer e2scrub_all.timer fstrim.timer systemd-modules-load.service; do
    ln -sf /dev/null "$root/etc/systemd/system/$unit"
done
: >"$root/etc/machine-id"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
# pid 1 until systemd: a writable cgroup2 hierarchy rooted at the container's own cgroup (the
# container runs with --cgroupns=private and CAP_SYS_ADMIN), over whatever Docker mounted there.
mkdir -p "$root/usr/local/sbin"
cat >"$root/usr/local/sbin/container-init" <<'EOF'
#!/bin/sh
set -e
umount -R /sys/fs/cgroup 2>/dev/null || true
mount -t cgroup2 cgroup2 /sys/fs/cgroup
exec /sbin/init "$@"
EOF
chmod 0755 "$root/usr/local/sbin/container-init"
tar -C "$root" -c . | docker import --change 'CMD ["/usr/local/sbin/container-init"]' \
    --change 'ENV container=docker' - "$image" >/dev/null
complete || { say "$image lacks one of ${programs[*]} after it was made"; exit 1; }
