#!/bin/sh
# SGI's fork benchmark, run inside a job: no fork fails and the job ends
# with its last process.  A fork and an exit make one kit, not two: the
# exited child's unused kit is kept for its parent's next refill.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

forks=$(pn_scale 2000)
pn_load pnotify
pn_load job
kits_made() {
	sed -n 's/^kits_made: //p' /proc/pnotify
}
made=$(kits_made)
out=$(jobctl create -- forkexit -q "$forks") || pn_fail "jobctl create -- forkexit: $out"
made=$(($(kits_made) - made))
pn_log "kits made for $forks forks: $made"
[ "$made" -le $((forks + forks / 8 + 16)) ] ||
	pn_fail "$made kits made for $forks forks and exits, not one per fork"
pn_log "$out"
result=$(echo "$out" | tail -n 1)	# jobctl prints the JID first
case $result in
"forks=$forks errors=0 "*) ;;
*) pn_fail "forkexit in a job: $result" ;;
esac
pn_unload job
pn_unload pnotify
