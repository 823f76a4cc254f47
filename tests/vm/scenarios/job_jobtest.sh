#!/bin/sh
# SGI's mini job test suite, extended to every escape route, atomic kill,
# waitjid, accounting, permissions and bad input: all must pass.
# PN_JOBTEST_TESTS (run.sh --env, comma-separated) picks tests by name
# prefix, + for a space (handled+SIGUSR1+during+multi; a name's own commas
# end a prefix); PN_JOBTEST_ROUNDS=N runs each race test N rounds
# (jobtest --rounds), PN_JOBTEST_BOX=S stops each after S seconds
# (--time-box); job_soak runs it so, with the 1,000 rounds of issue 12.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

pn_load pnotify
pn_load job
slow=
pn_slow && slow=--slow
rounds=
[ -z "${PN_JOBTEST_ROUNDS:-}" ] || rounds="--rounds $PN_JOBTEST_ROUNDS"
box=
[ -z "${PN_JOBTEST_BOX:-}" ] || box="--time-box $PN_JOBTEST_BOX"
# The prefixes, as jobtest's arguments.
set --
old_ifs=$IFS
IFS=,
for prefix in ${PN_JOBTEST_TESTS:-}; do
	[ -n "$prefix" ] || continue	# an empty prefix would pick all
	set -- "$@" "$(echo "$prefix" | tr + ' ')"
done
IFS=$old_ifs
# Streamed to the console, so that a run cut short by the timeout shows how
# far it got; from the file, so that nothing jobtest leaves behind with its
# output open can hold the scenario up.
: > /tmp/jobtest.log	# there before tail looks for it
# shellcheck disable=SC2086 # options
jobtest $slow $rounds $box "$@" > /tmp/jobtest.log 2>&1 &
jobtest=$!
tail -n +1 -f /tmp/jobtest.log &
tail=$!
wait "$jobtest"
rc=$?
sleep 1
kill "$tail"
# What jobtest left running with its output open (none should be).
for fd in /proc/[0-9]*/fd/1; do
	[ "$(readlink "$fd" 2>/dev/null)" = /tmp/jobtest.log ] || continue
	pid=${fd#/proc/}
	pid=${pid%%/*}
	echo "pn: left running by jobtest: pid $pid," \
		"$(grep -E '^(State|PPid|Threads|SigBlk|SigCgt):' "/proc/$pid/status" | tr '\n\t' '  ')"
done
grep -qx 'Great.  All tests completed, no errors' /tmp/jobtest.log ||
	pn_fail "jobtest reported errors (exit status $rc)"
[ "$rc" = 0 ] || pn_fail "jobtest exit status $rc"
[ "$(cat /proc/sys/kernel/pid_max)" -gt 1000 ] || pn_fail "pid_max not restored"
pn_unload job
pn_unload pnotify
