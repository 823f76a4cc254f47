#!/bin/sh
# Workers create, attach, detach, kill and wait for the same jobs at once:
# every call succeeds or fails as a race allows, the job table stays
# consistent and nothing is left afterwards.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

# Open finding: on the debug kernel this once hung with the VM idle (no
# hung-task report: an interruptible wait that never ends).  Until it is
# understood it runs on the stock kernel only, visibly skipped here.
pn_slow && pn_skip "hangs on the debug kernel (open finding, issue 4)"
pn_load pnotify
pn_load job
job_race 8 "$(pn_scale 20)" || pn_fail "job_race"
left=$(jobctl list | tail -n +2)
[ -z "$left" ] || pn_fail "jobs left after the race: $left"
pn_unload job
pn_unload pnotify
