#!/bin/sh
# Installs the Debian packages that the packaging targets need (make deb,
# make check-install), skipping those already installed; with arguments,
# only those.  Idempotent; run as root (or through sudo) on Debian 12.
set -eu

packages=${*:-"
	build-essential debhelper dh-dkms dkms dpkg-dev fakeroot lintian
	debootstrap e2fsprogs qemu-system-x86 pkg-config man-db
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
