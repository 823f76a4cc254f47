#!/bin/bash
# A minimal Debian system of one release (debootstrap minbase, build-essential
# and kmod), in which the project builds against that release's kernels with
# that release's compiler, and whose apt, not the machine's, fetches from the
# Debian archive.  Cached outside the clone:
#
#   scripts/debian-chroot.sh RELEASE path          # build it if needed, print it
#   scripts/debian-chroot.sh RELEASE deps PKG...   # install-deps.sh in it
#   scripts/debian-chroot.sh RELEASE run [--bind DIR] CMD...
#
# RELEASE is bullseye, bookworm or trixie (bookworm also has
# bookworm-backports).  The chroot is $PN_CACHE (default /var/cache/pnotify)
# /chroot-RELEASE-<hash>, <hash> that of its recipe and the mirrors, so that
# a change of recipe makes a new one.  `run` mounts /proc, /sys and /dev in
# it, and DIR (absolute) at the same path inside, for the command only; one
# command at a time per chroot (a lock).  Packages installed by `deps` stay
# in the cache: they are what that release's users install too.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PN_CACHE:-/var/cache/pnotify}
mirror=${PN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${PN_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}

usage() {
	sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
[ $# -ge 2 ] || usage
release=$1 action=$2
shift 2
case $release in
bullseye|bookworm|trixie) ;;
*) echo "debian-chroot.sh: unknown release '$release'" >&2; usage ;;
esac

# The release's suites: its updates and security fixes (the newest kernel of
# each series is there), and for bookworm its backports (Linux 6.12).
sources() {
	echo "deb $mirror $release main"
	echo "deb $mirror $release-updates main"
	echo "deb $security $release-security main"
	[ "$release" != bookworm ] || echo "deb $mirror $release-backports main"
}

# Creates the chroot under a temporary name and renames it when complete, so
# that an interrupted build never looks cached.
create() {
	local tmp
	"$here/install-deps.sh" debootstrap >&2
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.chroot-$release-$hash.XXXXXX")
	chmod 755 "$tmp"
	echo "debian-chroot: debootstrap $release into $tmp" >&2
	if ! timeout 1800 debootstrap --variant=minbase \
		--include=build-essential,kmod,ca-certificates \
		"$release" "$tmp" "$mirror" > "$tmp.log" 2>&1; then
		tail -n 20 "$tmp.log" >&2
		rm -rf --one-file-system "$tmp"
		return 1
	fi
	sources > "$tmp/etc/apt/sources.list"
	# No service starts in it, and apt keeps no downloaded package.
	printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
	chmod 755 "$tmp/usr/sbin/policy-rc.d"
	echo 'APT::Keep-Downloaded-Packages "false";' > "$tmp/etc/apt/apt.conf.d/50pnotify"
	mv "$tmp.log" "$tmp/debootstrap.log"
	touch "$tmp/.pnotify-chroot-complete"
	mv "$tmp" "$root"
	echo "debian-chroot: $root" >&2
}

# Keyed by the recipe (the two functions above) and the mirrors.
hash=$( { declare -f sources create; echo "$release $mirror $security"; } | sha256sum | cut -c1-16)
root=$cache/chroot-$release-$hash

# run [--bind DIR] CMD...: CMD in the chroot, with the mounts it needs.
run() {
	local bind='' mounts=() m rc=0
	if [ "${1:-}" = --bind ]; then
		bind=$2
		shift 2
	fi
	[ $# -gt 0 ] || usage
	cleanup() {
		local i
		for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
			umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}"
		done
		mounts=()
	}
	trap cleanup EXIT
	for m in proc sys dev dev/pts; do
		mount --bind "/$m" "$root/$m"
		mounts+=("$root/$m")
	done
	if [ -n "$bind" ]; then
		mkdir -p "$root$bind"
		mount --bind "$bind" "$root$bind"
		mounts+=("$root$bind")
	fi
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 HOME=/root "$@" || rc=$?
	cleanup
	trap - EXIT
	return "$rc"
}

[ "$(id -u)" = 0 ] || { echo "debian-chroot.sh: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
# A chroot made is never changed by its name's holder: its path needs no lock.
if [ "$action" = path ] && [ -e "$root/.pnotify-chroot-complete" ]; then
	echo "$root"
	exit 0
fi
mkdir -p "$cache"
exec 9> "$cache/chroot-$release-$hash.lock"
flock 9
[ -e "$root/.pnotify-chroot-complete" ] || create

case $action in
path) echo "$root" ;;
deps)
	# Nothing boots this system: no initramfs for a kernel image that a
	# package pulls in (Debian's 6.12 headers do), which takes minutes.
	[ -L "$root/usr/sbin/update-initramfs" ] ||
		run sh -c 'dpkg-divert --local --rename --add /usr/sbin/update-initramfs &&
			ln -sf /bin/true /usr/sbin/update-initramfs' > /dev/null
	install -m 755 "$here/install-deps.sh" "$root/usr/local/sbin/pnotify-install-deps"
	run /usr/local/sbin/pnotify-install-deps "$@" ;;
run) run "$@" ;;
*) usage ;;
esac
