#!/bin/sh
# The soak of issue 12: job_jobtest's race tests (membership at fork, kills
# during slow forks, the owner's kills, threads during moves, detachjid
# racing attachpid) 1,000 rounds each instead of their few.
# Opt-in: skipped unless PN_SOAK=1.  Under TCG the full soak takes hours
# (a slow-fork round takes about a second on the stock kernel, a
# multi-threaded one up to two), so give it the time, or split the tests
# across two guests run at once (about 1 h 35 min each):
#
#   tests/vm/run.sh --timeout 21600 --env "PN_SOAK=1" job_soak
#   tests/vm/run.sh --build B1 --timeout 9000 \
#	--env "PN_SOAK=1;PN_SOAK_TESTS=handled" job_soak
#   tests/vm/run.sh --build B2 --timeout 9000 \
#	--env "PN_SOAK=1;PN_SOAK_TESTS=SIGSTOP,SIGKILL,SIGTERM" job_soak
#
# (B1 and B2: copies of build/, since run.sh writes its image there.)
#
# PN_SOAK_ROUNDS=N changes the 1,000; PN_SOAK_TESTS (comma-separated
# one-word name prefixes) picks tests; PN_SOAK_BOX=S stops each test after
# S seconds, with a note of the rounds it made:
#
#   tests/vm/run.sh --timeout 1500 --env "PN_SOAK=1;PN_SOAK_BOX=60" job_soak
#
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

[ "${PN_SOAK:-0}" = 1 ] || pn_skip "opt-in: run.sh --env PN_SOAK=1 (see the header)"
PN_JOBTEST_ROUNDS=${PN_SOAK_ROUNDS:-1000}
PN_JOBTEST_BOX=${PN_SOAK_BOX:-}
PN_JOBTEST_TESTS=${PN_SOAK_TESTS:-membership,handled,SIGSTOP,SIGKILL,SIGTERM,the,threads,detachjid}
export PN_JOBTEST_ROUNDS PN_JOBTEST_BOX PN_JOBTEST_TESTS
exec sh /scenarios/job_jobtest.sh
