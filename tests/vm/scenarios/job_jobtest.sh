#!/bin/sh
# SGI's mini job test suite, extended to every escape route, atomic kill,
# waitjid, accounting, permissions and bad input: all must pass.
# PN_JOBTEST_TESTS (run.sh --env, comma-separated) picks tests by name
# prefix.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

pn_load pnotify
pn_load job
slow=
pn_slow && slow=--slow
tests=$(echo "${PN_JOBTEST_TESTS:-}" | tr , ' ')
# shellcheck disable=SC2086 # a list of name prefixes
jobtest $slow $tests > /tmp/jobtest.log 2>&1
rc=$?
cat /tmp/jobtest.log
grep -qx 'Great.  All tests completed, no errors' /tmp/jobtest.log ||
	pn_fail "jobtest reported errors (exit status $rc)"
[ "$rc" = 0 ] || pn_fail "jobtest exit status $rc"
[ "$(cat /proc/sys/kernel/pid_max)" -gt 1000 ] || pn_fail "pid_max not restored"
pn_unload job
pn_unload pnotify
