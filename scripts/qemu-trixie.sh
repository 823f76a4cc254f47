#!/bin/bash
# qemu-system-x86_64 ARGS... as Debian 13 (trixie) ships it (QEMU 10), run
# from the project's trixie chroot (scripts/debian-chroot.sh), for what
# Debian 12's QEMU 7.2 cannot do: boot 2 vCPUs under -icount, where 7.2
# hangs at "x86: Booting SMP configuration".  The directories of -kernel
# and -initrd are mounted at their paths in the chroot; no other file is
# (no -plugin: the project's is built for QEMU 7.2).  Needs root.
#
# The mounts are made in a mount namespace of the command's own, so that
# they go with it however it ends, and the chroot's lock is not held while
# QEMU runs: a boot may take an hour, and the chroot's other users (the
# kernels lane's builds) must not wait for it.
set -euo pipefail

die() {
	echo "qemu-trixie.sh: $*" >&2
	exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
chroot_sh=$here/debian-chroot.sh
root=$("$chroot_sh" trixie path)
[ -x "$root/usr/bin/qemu-system-x86_64" ] ||
	"$chroot_sh" trixie deps qemu-system-x86 >&2
args=() binds=()
while [ $# -gt 0 ]; do
	args+=("$1")
	case $1 in
	-kernel|-initrd)
		[ $# -ge 2 ] || die "$1 needs a file"
		f=$(realpath -e "$2") || die "$1 $2: no such file"
		d=$(dirname "$f")
		# Not over the chroot's own root, nor out of it by its symlinks.
		[ "$d" != / ] || die "$1 $2: a file in / cannot be mounted alone"
		case $(realpath -m "$root$d") in
		"$root"/*) ;;
		*) die "$1 $2: its directory leads out of the chroot" ;;
		esac
		args+=("$f")
		binds+=("$d")
		shift ;;
	-plugin) die "-plugin: the project's plugin is built for QEMU 7.2" ;;
	esac
	shift
done

# shellcheck disable=SC2016 # the inner shell's
exec unshare --mount --propagation private -- /bin/bash -c '
	set -e
	root=$1 nbinds=$2
	shift 2
	for m in proc sys dev; do
		mount --bind "/$m" "$root/$m"
	done
	for ((i = 0; i < nbinds; i++)); do
		mkdir -p "$root$1"
		mount --bind "$1" "$root$1"
		shift
	done
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LC_ALL=C.UTF-8 HOME=/root qemu-system-x86_64 "$@"
' qemu-trixie "$root" "${#binds[@]}" "${binds[@]}" "${args[@]}"
