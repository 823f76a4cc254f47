#!/bin/sh
# Installs Debian packages, skipping those already installed: the ones
# given as arguments, or by default every package the build and the tests
# need.  Run as root (or through sudo) on Debian 12.
set -eu

packages=${*:-"
	build-essential libc6-dev gcc-multilib libc6-dev-i386 kmod cpio gzip valgrind
	linux-image-amd64 linux-headers-amd64
	qemu-system-x86 busybox-static keyutils
	linux-source-6.1 xz-utils perl
	bc flex bison libelf-dev libssl-dev
	libpam0g-dev libslurm-dev
"}

missing=
for p in $packages; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "installing:$missing" >&2
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -q >&2
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing >&2
