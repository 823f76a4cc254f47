#!/bin/sh
# SGI's fork benchmark, run inside a job: no fork fails, the job ends with
# its last process, and the children's exits end in the exit hook.  Forks
# and exits in a job reuse pnotify's memory: the exited child's entry, its
# subscriptions' blocks and its unused kit become kits again, and few are
# made (one per fork without the reuse, as on KASAN's kernels, where a fork
# takes its parent's next kits from those of exited children).  job's
# exec() serves its exec watchers alone: with none registered, its members'
# execs queue no exec work.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

forks=$(pn_scale 2000)
pn_load pnotify
# Blocks cached while no subscriber had data (those of 300 ended
# subscriptions of the test subscriber) are of no use once job registers:
# they must not keep its blocks from being reused.
if grep -q '^entry_reuse: on$' /proc/pnotify; then
	pn_load pnotify_testsub
	i=0
	while [ "$i" -lt 300 ]; do
		sh -c 'echo subscribe > /proc/pnotify_testsub' ||
			pn_fail "cannot subscribe to pnotify_testsub"
		i=$((i + 1))
	done
	pn_unload pnotify_testsub
	grep -q '^blocks_cached: 300$' /proc/pnotify ||
		pn_fail "300 ended subscriptions left $(grep blocks_cached /proc/pnotify), not 300"
fi
pn_load job
kits_made() {
	sed -n 's/^kits_made: //p' /proc/pnotify
}
in_hook() {
	sed -n 's/^exits_in_hook: //p' /proc/pnotify
}
exec_works() {
	sed -n 's/^exec_works: //p' /proc/pnotify
}
made=$(kits_made)
hooked=$(in_hook)
out=$(jobctl create -- forkexit -q "$forks") || pn_fail "jobctl create -- forkexit: $out"
made=$(($(kits_made) - made))
hooked=$(($(in_hook) - hooked))
pn_log "kits made for $forks forks: $made; exits ended in the hook: $hooked"
# job's leave() ends a member's exit in the hook, with no exit work, but
# for the job's last (its end sleeps) and while the kit cache is low.
[ "$hooked" -ge $((forks * 3 / 4)) ] ||
	pn_fail "$hooked of $forks exits ended in the hook: the others queued an exit work"
if grep -q '^entry_reuse: on$' /proc/pnotify; then
	[ "$made" -le $((forks / 4 + 64)) ] ||
		pn_fail "$made kits made for $forks forks and exits: exited tasks' memory not reused"
else
	# KASAN's kernels: entries and blocks are freed, a kit per fork.
	[ "$made" -le $((forks + forks / 8 + 16)) ] ||
		pn_fail "$made kits made for $forks forks and exits, not one per fork"
fi
pn_log "$out"
result=$(echo "$out" | tail -n 1)	# jobctl prints the JID first
case $result in
"forks=$forks errors=0 "*) ;;
*) pn_fail "forkexit in a job: $result" ;;
esac
execs=$(pn_scale 200)
queued=$(exec_works)
out=$(jobctl create -- sh -c "i=0; while [ \$i -lt $execs ]; do /bin/true; i=\$((i + 1)); done") ||
	pn_fail "jobctl create -- sh (execs): $out"
queued=$(($(exec_works) - queued))
[ "$queued" -eq 0 ] ||
	pn_fail "$execs execs in a job queued $queued exec works: no exec watcher asked for any"
pn_unload job
pn_unload pnotify
