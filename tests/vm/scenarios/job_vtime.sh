#!/bin/sh
# Accounting where the kernel keeps CPU time by virtual time accounting: on
# a nohz_full CPU of a kernel with VIRT_CPU_ACCOUNTING_GEN (Debian's), the
# exit hook reads a member's time with task_cputime_adjusted(), under its
# job's lock, not raw.  jobtest's accounting tests, every task pinned to
# CPU 1, in a boot with nohz_full=1 (run-all.sh's stock-vtime lane).
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

# The stock-vtime lane sets PN_VTIME_LANE: there a boot without it fails.
if [ "$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)" != 1 ]; then
	[ -z "${PN_VTIME_LANE:-}" ] ||
		pn_fail "CPU 1 is not nohz_full in the lane booted with nohz_full=1"
	pn_skip "CPU 1 is not nohz_full: boot with run.sh --append nohz_full=1"
fi
pn_load pnotify
pn_load job
taskset -c 1 jobtest accounting > /tmp/jobtest.log 2>&1
rc=$?
cat /tmp/jobtest.log
for t in 'accounting ' 'accounting never goes back '; do
	grep -q "^$t *PASS" /tmp/jobtest.log || pn_fail "jobtest: no PASS of '$t'"
done
grep -qx 'Great.  All tests completed, no errors' /tmp/jobtest.log ||
	pn_fail "jobtest reported errors (exit status $rc)"
pn_unload job
pn_unload pnotify
