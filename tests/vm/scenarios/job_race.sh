#!/bin/sh
# Workers create, attach, detach, kill and wait for the same jobs at once:
# every call succeeds or fails as a race allows, the job table stays
# consistent and nothing is left afterwards.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

pn_load pnotify
pn_load job
job_race 8 "$(pn_scale 20)" || pn_fail "job_race"
left=$(jobctl list | tail -n +2)
[ -z "$left" ] || pn_fail "jobs left after the race: $left"
pn_unload job
pn_unload pnotify
