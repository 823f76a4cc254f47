#!/bin/sh
# SGI's fork benchmark, run inside a job: no fork fails and the job ends
# with its last process.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

forks=$(pn_scale 2000)
pn_load pnotify
pn_load job
out=$(jobctl create -- forkexit -q "$forks") || pn_fail "jobctl create -- forkexit: $out"
pn_log "$out"
result=$(echo "$out" | tail -n 1)	# jobctl prints the JID first
case $result in
"forks=$forks errors=0 "*) ;;
*) pn_fail "forkexit in a job: $result" ;;
esac
pn_unload job
pn_unload pnotify
