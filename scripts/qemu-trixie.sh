#!/bin/bash
# qemu-system-x86_64 ARGS... as Debian 13 (trixie) ships it (QEMU 10), run
# from the project's trixie chroot (scripts/debian-chroot.sh), for what
# Debian 12's QEMU 7.2 cannot do: boot 2 vCPUs under -icount, where 7.2
# hangs at "x86: Booting SMP configuration".  The files of -kernel and
# -initrd are mounted at their paths in the chroot.  Needs root.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/debian-chroot.sh" trixie deps qemu-system-x86 >&2
args=() binds=()
while [ $# -gt 0 ]; do
	args+=("$1")
	case $1 in
	-kernel|-initrd)
		[ $# -ge 2 ] || { echo "qemu-trixie.sh: $1 needs a file" >&2; exit 2; }
		f=$(realpath -e "$2")
		args+=("$f")
		binds+=(--bind "$(dirname "$f")")
		shift ;;
	esac
	shift
done
exec "$here/debian-chroot.sh" trixie run "${binds[@]}" qemu-system-x86_64 "${args[@]}"
