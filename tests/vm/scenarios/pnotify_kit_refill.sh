# A followed fork that finds no kit in the cache for its thread's next
# fork (or a new thread none for its first) leaves it to a task work of
# that thread, which runs before the thread is back in user space: user
# space sees nothing of it, and every child is in the job, whatever
# interrupts or watches the system call.  forkways forks, clone3()s and
# creates threads under a 200 us SIGALRM, keeping every child and thread
# alive (an exit would top the cache up): the cache empties, and each
# further fork and thread leaves a work.  Plain and as an ia32 binary,
# under a tracer stopping every system call, under a seccomp filter, and
# killed, stopped or frozen (cgroup v2's freezer) in the middle (the cache
# emptied before each loop); and with vfork() and children that exit; and
# with every user task frozen by the system's freezer (suspend's,
# pm_test=freezer) in the middle.  The test build also takes no kit from
# the cache in one fork in two whatever it holds (test_kits_skip) and
# sleeps 20 ms in each work (test_delay_refill_us), so that the signals
# land there; then pnotify is unloaded while a work sleeps.
. /lib/pn/lib.sh

pn_load pnotify
pn_load job
p=/sys/module/pnotify/parameters
if pn_test_build test_kits_skip; then
	echo 2 > "$p/test_kits_skip"
	test_build=1
fi
stat() {
	sed -n "s/^$1: //p" /proc/pnotify
}
rounds=$(pn_scale 200)
failures=$(stat fork_failures)
for run in "forkways $rounds plain keep" "forkways32 $rounds plain keep" \
	"forkways $rounds trace keep" "forkways32 $rounds seccomp keep" \
	"forkways $rounds plain"; do
	refills=$(stat refill_works)
	# shellcheck disable=SC2086 # the program and its arguments
	jobctl create -- $run > /tmp/out 2>&1 || pn_fail "$run: $(cat /tmp/out)"
	out=$(cat /tmp/out)
	refills=$(($(stat refill_works) - refills))
	pn_log "$run: $(echo "$out" | tail -n 2 | tr '\n' ' ')refills $refills"
	# Kept children drain the cache: then every fork leaves a work.
	case $run:${test_build:-0} in
	*keep:*) min=$rounds ;;
	*:1) min=$((rounds / 2)) ;;
	*) min=0 ;;
	esac
	[ "$refills" -ge "$min" ] ||
		pn_fail "$run: $refills refill works, not $min"
done
[ "$(stat fork_failures)" = "$failures" ] ||
	pn_fail "$(($(stat fork_failures) - failures)) forks failed in pnotify"

[ -z "${test_build:-}" ] || echo 20000 > "$p/test_delay_refill_us"
for mode in kill stop freeze; do
	refills=$(stat refill_works)
	jobctl create -- forkways "$(pn_scale 30)" $mode keep > /tmp/out 2>&1 ||
		pn_fail "forkways $mode: $(cat /tmp/out)"
	out=$(cat /tmp/out)
	refills=$(($(stat refill_works) - refills))
	pn_log "forkways $mode: $(echo "$out" | tail -n 1), refills $refills"
	# The cache emptied before each loop: its own fork leaves one at least.
	[ "$refills" -ge 20 ] ||
		pn_fail "forkways $mode: $refills refill works, not 20"
done
[ "$(stat fork_failures)" = "$failures" ] ||
	pn_fail "$(($(stat fork_failures) - failures)) forks failed in pnotify, killed, stopped or frozen"

# The system's freezer, as a suspend freezes every user task (pm_test
# "freezer": frozen for 5 s, then thawed), while forks leave works: none
# of them shows it.
if [ -w /sys/power/pm_test ] && grep -qw freeze /sys/power/state; then
	refills=$(stat refill_works)
	thaws=$(dmesg | grep -c 'Restarting tasks')
	jobctl create -- forkways "$(pn_scale 300)" plain keep > /tmp/out 2>&1 &
	runner=$!
	refilling() {
		[ "$(stat refill_works)" -gt "$refills" ]
	}
	pn_wait_until "works refilling kits" refilling
	at_freeze=$(stat refill_works)
	echo freezer > /sys/power/pm_test
	frozen=0
	echo freeze > /sys/power/state && frozen=1
	echo none > /sys/power/pm_test
	[ "$frozen" = 1 ] ||
		pn_fail "the system's freezer failed: $(dmesg | tail -n 5)"
	[ "$(dmesg | grep -c 'Restarting tasks')" -gt "$thaws" ] ||
		pn_fail "no freeze and thaw logged"
	wait "$runner" || pn_fail "forkways, frozen by the system: $(cat /tmp/out)"
	# Works after the freeze began: forkways ran across it.
	[ "$(stat refill_works)" -gt "$at_freeze" ] ||
		pn_fail "forkways ended before the freeze: give it more rounds"
	pn_log "system freezer: $(tail -n 1 /tmp/out), refills $(($(stat refill_works) - refills)), $(($(stat refill_works) - at_freeze)) after the freeze began"
	[ "$(stat fork_failures)" = "$failures" ] ||
		pn_fail "forks failed in pnotify under the system's freezer"
else
	pn_log "skipped the system's freezer: no pm_test or freeze state"
fi
if [ -z "${test_build:-}" ]; then
	pn_unload job
	pn_wait_until "pnotify's entries to go" grep -q '^tasks: 0$' /proc/pnotify
	grep -q '^works_inflight: 0$' /proc/pnotify || pn_fail "refill works left in flight"
	pn_unload pnotify
	exit 0
fi

# Unloaded while a refill work sleeps (counted in flight, until 500 ms
# after the unload began) and then spins in its return path (past the
# count, until 1 s after the drain's end): the unload waits for both, and
# the thread goes on without pnotify.  Neither window depends on how
# long the unloads take, on a debug kernel in a loaded host too.
asleep() {
	grep -l pn_refill_work /proc/[0-9]*/stack 2> /dev/null | grep -q .
}
returning() {
	dmesg | grep -c "unload: [1-9][0-9]* tasks in a work's return path"
}
windows=$(returning)
echo 60000000 > "$p/test_delay_refill_us"
echo 1000000 > "$p/test_delay_return_us"
jobctl create -- forkways 3 plain > /tmp/out 2>&1 &
runner=$!
pn_wait_until "a refill work asleep" asleep
pn_unload job
started=$(date +%s)
pn_unload pnotify
took=$(($(date +%s) - started))
wait "$runner" || pn_fail "forkways, its refill work unloaded: $(cat /tmp/out)"
pn_log "unloaded in $took s with a refill work asleep: $(tail -n 1 /tmp/out)"
[ "$(returning)" -gt "$windows" ] ||
	pn_fail "the unload did not wait for the refill work's return path"

# A vfork parent waits in the kernel with its refill work queued (every
# kit made by a work: test_kits_skip 1) while its child stays stopped: the
# unload takes the work off instead of waiting for the child, which only
# someone else continues.
pn_load pnotify
pn_load job
echo 1 > "$p/test_kits_skip"
jobctl create -- forkways 1 vfork-stop > /tmp/out 2>&1 &
runner=$!
stopped_child() {
	grep -l '^[0-9]* (forkways) [Tt]' /proc/[0-9]*/stat 2> /dev/null |
		sed -n 's|^/proc/\([0-9]*\)/stat$|\1|p'
}
child_stopped() {
	[ -n "$(stopped_child)" ]
}
pn_wait_until "a vfork child stopped" child_stopped
pn_unload job
child=$(stopped_child)
[ -n "$child" ] || pn_fail "the vfork child is no longer stopped"
rmmod pnotify &
unloader=$!
limit=300
pn_slow && limit=3000
n=0
while kill -0 "$unloader" 2> /dev/null; do
	[ "$n" -lt "$limit" ] ||
		pn_fail "the unload waits for a vfork parent whose child is stopped"
	usleep 100000
	n=$((n + 1))
done
wait "$unloader" || pn_fail "rmmod pnotify"
pn_log "unloaded in $((n / 10)) s beside a vfork parent whose child is stopped"
kill -CONT "$child"
wait "$runner" || pn_fail "forkways vfork-stop: $(cat /tmp/out)"
