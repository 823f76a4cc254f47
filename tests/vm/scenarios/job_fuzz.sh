#!/bin/sh
# Random ioctls on /proc/job, as root and as an unprivileged user: every call
# gives a clean result, the fuzzer's jobs are gone afterwards and both
# modules unload.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

calls=$(pn_scale 100000)
pn_load pnotify
pn_load job
job_fuzz "$calls" || pn_fail "job_fuzz as root"
pn_as_user 65534 job_fuzz "$calls" || pn_fail "job_fuzz as uid 65534"
left=$(jobctl list | tail -n +2)
[ -z "$left" ] || pn_fail "jobs left after fuzzing: $left"
pn_unload job
pn_unload pnotify
[ ! -e /proc/pnotify ] || pn_fail "/proc/pnotify still there after unloading"
