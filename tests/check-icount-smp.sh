#!/bin/bash
# Checks what make bench's stress-ng table on 2 vCPUs (PN_BENCH_ONLY=smp)
# stands on: Debian 13's QEMU (scripts/qemu-trixie.sh) boots the stock
# kernel with 2 vCPUs under -icount shift=0,sleep=off, where Debian 12's
# QEMU 7.2 hangs, and two jobs fork there at once (tests/icount/icount_smp.sh).
# Needs root (the chroot).  Ends with "N passed, N failed".
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The chroot and its QEMU first, outside the boot's timeout: the chroot is
# made once (minutes), and another lane may hold its lock meanwhile.
"$repo/scripts/debian-chroot.sh" trixie deps qemu-system-x86
PN_VM_QEMU=$repo/scripts/qemu-trixie.sh PN_VM_SMP=2 \
	PN_VM_QEMU_ARGS="-icount shift=0,sleep=off" \
	exec "$repo/tests/vm/run.sh" --scenarios "$repo/tests/icount" \
	--timeout 600 icount_smp
