#!/bin/sh
# Runs .ci/run as CI would on a new Debian 12 machine: in a fresh root made by debootstrap in a folder (nothing
# installed by hand), on a git clone of a branch of this repository, with cold caches. As root (docs/ci.md).
#   sh tools/ci-fresh-root.sh DIR [BRANCH]     BRANCH: default the one checked out here
#   MIRROR=URL                                  the Debian mirror (default: the first of this machine's apt sources)
# DIR is made with debootstrap unless it already holds a root. /proc, /sys, /dev (with /dev/pts and /dev/shm)
# and /tmp are mounted into it for the run and unmounted after it, whatever its end. /tmp is this machine's:
# the X servers of the window tests choose their display numbers by the lock files there.
set -eu
[ "$(id -u)" -eq 0 ] || { echo "ci-fresh-root.sh: run it as root (debootstrap, mount, chroot)" >&2; exit 1; }
DIR=$(mkdir -p "$1" && cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
BRANCH=${2:-$(git -C "$SRC" rev-parse --abbrev-ref HEAD)}
if [ -z "${MIRROR:-}" ]; then # the first ".../debian" of the system's sources, one-line or deb822
    MIRROR=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
        grep -oE '(https?|file)://[^ ]*/debian/?( |$)' | head -1 | tr -d ' ')
fi
if [ ! -x "$DIR/usr/bin/apt-get" ]; then
    command -v debootstrap >/dev/null 2>&1 || apt-get install -y -qq debootstrap >/dev/null
    echo "== debootstrap bookworm $DIR $MIRROR"
    debootstrap bookworm "$DIR" "$MIRROR" >"$DIR.debootstrap.log" 2>&1 || { tail -20 "$DIR.debootstrap.log"; exit 1; }
fi
cp /etc/resolv.conf "$DIR/etc/resolv.conf"
# The network's trust as this machine has it (a CI machine like it has the same): the local certificate
# authorities, which Debian's ca-certificates adds to the system's list when .ci/run installs it, and Node's
# pointer to that list (npm checks the registry's certificate with Node's own list otherwise).
if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$DIR/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates/. "$DIR/usr/local/share/ca-certificates/"
fi
rm -rf "$DIR/root/mha-tracer"
git clone -q -b "$BRANCH" "$SRC" "$DIR/root/mha-tracer"
echo "== $(git -C "$DIR/root/mha-tracer" log -1 --format='%h %s')"

mount -t proc proc "$DIR/proc"
mount -t sysfs sysfs "$DIR/sys"
mount --rbind /dev "$DIR/dev"
mount --make-rslave "$DIR/dev"
mount --bind /tmp "$DIR/tmp"
trap 'for m in tmp dev sys proc; do umount -R "$DIR/$m" || umount -lR "$DIR/$m"; done' EXIT
# A clean environment, as a new machine's root login has (and Node's certificates as above): no MHA_CACHE (the default, inside DIR, cold the
# first time), no PATH of this machine's.
chroot "$DIR" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 ${NODE_EXTRA_CA_CERTS:+NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS} \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c 'cd /root/mha-tracer && time bash .ci/run'
