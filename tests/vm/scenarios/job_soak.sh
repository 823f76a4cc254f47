#!/bin/sh
# The soak of issue 12: jobtest's race tests (membership at fork, kills
# during slow forks, the owner's kills, threads during moves, detachjid
# racing attachpid) 1,000 rounds each instead of job_jobtest's few.
# Opt-in: skipped unless PN_SOAK=1.  Under TCG on 2 cores the full soak
# takes about 4 hours (9 slow-fork tests of about 1.2 s a round; the
# others take a minute together), so give it the time:
#
#   tests/vm/run.sh --timeout 21600 --env "PN_SOAK=1" job_soak
#
# PN_SOAK_ROUNDS=N changes the 1,000; PN_SOAK_TESTS (comma-separated
# one-word name prefixes) picks tests; PN_SOAK_BOX=S stops each test after
# S seconds, with a note of the rounds it made:
#
#   tests/vm/run.sh --timeout 1500 --env "PN_SOAK=1;PN_SOAK_BOX=90" job_soak
#
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

[ "${PN_SOAK:-0}" = 1 ] || pn_skip "opt-in: run.sh --env PN_SOAK=1 (see the header)"
pn_load pnotify
pn_load job
rounds=${PN_SOAK_ROUNDS:-1000}
slow=
pn_slow && slow=--slow
box=
[ -z "${PN_SOAK_BOX:-}" ] || box="--time-box $PN_SOAK_BOX"
tests=$(echo "${PN_SOAK_TESTS:-membership,handled,SIGSTOP,SIGKILL,SIGTERM,the,threads,detachjid}" |
	tr , ' ')
# Streamed to the console, so that a soak cut short still shows its rounds.
# shellcheck disable=SC2086 # options and a list of name prefixes
jobtest $slow --rounds "$rounds" $box $tests 2>&1 | tee /tmp/soak.log
grep -qx 'Great.  All tests completed, no errors' /tmp/soak.log ||
	pn_fail "the soak found errors"
pn_unload job
pn_unload pnotify
