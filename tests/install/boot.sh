#!/bin/bash
# Boots a full Debian system from its root filesystem image under QEMU (TCG),
# with its own kernel and initrd, root=/dev/vda (virtio), systemd as init and
# the console on ttyS0, and copies the console to a log file.  Returns when
# the system powers off, or kills QEMU after --timeout seconds (status 124).
#
#   tests/install/boot.sh --kernel VMLINUZ --initrd INITRD --image RAW \
#       --log FILE [--timeout SECONDS] [--append "ARGS"] [--verbose]
#
# env: PN_VM_ACCEL (default "tcg,thread=single": multi-threaded TCG can run
# a stale translation of kernel text that another vCPU has just patched, see
# README.md), PN_VM_MEM (MiB, default 1024), PN_VM_SMP (default 2).
set -euo pipefail

kernel= initrd= image= log= timeout_s=900 append= verbose=
usage() {
	sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--image) image=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	*) usage ;;
	esac
done
[ -n "$kernel" ] && [ -n "$initrd" ] && [ -n "$image" ] && [ -n "$log" ] || usage
for f in "$kernel" "$initrd" "$image"; do
	[ -r "$f" ] || { echo "boot.sh: cannot read $f" >&2; exit 2; }
done

qemu=(qemu-system-x86_64 -accel "${PN_VM_ACCEL:-tcg,thread=single}"
	-cpu "${PN_VM_CPU:-max,la57=off}" -smp "${PN_VM_SMP:-2}" -m "${PN_VM_MEM:-1024}"
	-kernel "$kernel" -initrd "$initrd"
	-append "root=/dev/vda rw console=ttyS0 panic=-1 net.ifnames=0 $append"
	-drive "file=$image,format=raw,if=virtio,cache=unsafe"
	-nic none -display none -monitor none -serial stdio -no-reboot)

mkdir -p "$(dirname "$log")"
rc=0
if [ -n "$verbose" ]; then
	timeout --kill-after=10 "$timeout_s" "${qemu[@]}" < /dev/null 2>&1 |
		tee "$log" || rc=${PIPESTATUS[0]}
else
	timeout --kill-after=10 "$timeout_s" "${qemu[@]}" < /dev/null > "$log" 2>&1 ||
		rc=$?
fi
[ "$rc" = 124 ] && echo "boot.sh: timed out after ${timeout_s}s (log: $log)" >&2
exit "$rc"
