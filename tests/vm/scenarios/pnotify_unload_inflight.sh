# pnotify unloaded while its task works are in flight: the test subscriber
# follows a process that forks, execs and exits, then goes, and pnotify at
# once; every tenth round job and keyring_bridge too, with a stopped member
# whose keyring install stays queued.  In the debug-unload boot (the test
# build, preempt=full) the works of the process's children (named true)
# end only once the unload has begun (test_hold_comm), then every work
# spins, preemptibly, in its return path after it stopped counting as in
# flight (test_delay_return_us, 1 s; for a work ending in the unload, 1 s
# after the end of the unload's drain): the unload must wait until no task
# runs pnotify's text any more.  The test build logs how many tasks the
# drain left in that window (nine rounds in ten at least must have had
# one) and WARNs if any is still there when the text is about to go; a
# module freed under a spin faults when the task returns.  100 rounds, or
# as many as fit in 200 s (PN_UNLOAD_ROUNDS, PN_UNLOAD_BUDGET_S); on the
# stock kernel 10 (scaled), without the knobs; skipped in the other boots
# of the test build; failed where the lane requires the test build and
# finds another.
. /lib/pn/lib.sh

spin_us=0
params=
pn_load pnotify
if pn_test_build test_delay_return_us; then
	grep -q 'preempt=full' /proc/cmdline || {
		rmmod pnotify
		pn_skip "the test build's run is in the preempt=full boot"
	}
	# debugfs shows the model with SCHED_DEBUG, the boot log always;
	# PREEMPT_RT is preemptible throughout, with no dynamic model.
	model=$(cat /sys/kernel/debug/sched/preempt 2>/dev/null ||
		grep -o 'Dynamic Preempt: .*' /run/pn.boot-dmesg)
	[ -n "$model" ] || ! uname -v | grep -q PREEMPT_RT || model="PREEMPT_RT"
	case $model in
	*"(full)"* | *"Dynamic Preempt: full"* | PREEMPT_RT)
		pn_log "preemption model: $model" ;;
	*) pn_fail "preempt=full not in effect: '$model'" ;;
	esac
	spin_us=1000000
	params="test_hold_comm=true test_delay_return_us=$spin_us"
	rounds=${PN_UNLOAD_ROUNDS:-100}
else
	rounds=${PN_UNLOAD_ROUNDS:-$(pn_scale 10)}
fi
budget=${PN_UNLOAD_BUDGET_S:-200}
# An unload that waited for a task would not end: 30 s (120 s on a debug
# kernel, where its RCU Tasks grace periods alone have taken 9 s).
limit=30
pn_slow && limit=120
pn_unload pnotify

# A process in no job, followed by the test subscriber: a shell that runs
# a program in a loop (a fork, an exec and an exit each).
sh -c 'while :; do /bin/true; done' &
looper=$!

begun=$(date +%s)
i=0
while [ "$i" -lt "$rounds" ] && [ $(($(date +%s) - begun)) -lt "$budget" ]; do
	# shellcheck disable=SC2086 # no parameters or two
	insmod "$PN_MODDIR/pnotify.ko" $params || pn_fail "round $i: insmod pnotify"
	jobs_too=$([ $((i % 10)) = 0 ] && echo 1)
	if [ -n "$jobs_too" ]; then
		insmod "$PN_MODDIR/job.ko" || pn_fail "round $i: insmod job"
		insmod "$PN_MODDIR/keyring_bridge.ko" ||
			pn_fail "round $i: insmod keyring_bridge"
		sleep 3600 &
		stopped=$!
		kill -STOP "$stopped"
		rm -f /tmp/jid
		jobctl create -- sleep 3600 > /tmp/jid &
		member=$!
		pn_wait_file /tmp/jid
		jobctl attach "$stopped" "$(cat /tmp/jid)" ||
			pn_fail "round $i: attach a stopped process"
	fi
	insmod "$PN_MODDIR/pnotify_testsub.ko" sleep_ms=0 ||
		pn_fail "round $i: insmod pnotify_testsub"
	echo "subscribe $looper" > /proc/pnotify_testsub ||
		pn_fail "round $i: subscribe the looper"
	if [ "$spin_us" != 0 ]; then
		# A child held in its exec or exit work (works_held: a refill
		# work in flight is not), beside the stopped member's queued
		# call.
		inflight=$((${jobs_too:-0} + 1))
		pn_wait_until "a work held" sh -c \
			"[ \$(sed -n 's/^works_held: //p' /proc/pnotify) -ge 1 ] &&
			[ \$(sed -n 's/^works_inflight: //p' /proc/pnotify) -ge $inflight ]"
	fi
	usleep 100000
	if [ -n "$jobs_too" ]; then
		rmmod keyring_bridge || pn_fail "round $i: rmmod keyring_bridge"
		rmmod job || pn_fail "round $i: rmmod job"
	fi
	started=$(date +%s)
	timeout $((limit * 2)) rmmod pnotify_testsub &&
		timeout $((limit * 2)) rmmod pnotify || pn_fail "round $i: rmmod"
	took=$(($(date +%s) - started))
	[ "$took" -le "$limit" ] || pn_fail "round $i: the unload took $took s"
	if [ -n "$jobs_too" ]; then
		kill -KILL "$stopped" "$member"
		wait "$stopped" "$member" 2>/dev/null
	fi
	i=$((i + 1))
	[ $((i % 10)) = 0 ] && pn_log "round $i of $rounds"
done
# The spins end in pnotify's text, had it been freed under them.
usleep $((spin_us + 100000))
kill "$looper"
wait "$looper"
pn_log "$i rounds in $(($(date +%s) - begun)) s"
# What the budget cut short must still be a test.
[ "$i" = "$rounds" ] || [ "$i" -ge 5 ] || pn_fail "only $i rounds in the budget"
if [ "$spin_us" != 0 ]; then
	open=$(dmesg | grep -c "unload: [1-9][0-9]* tasks in a work's return path")
	pn_log "$open rounds with a task in a work's return path after the drain"
	[ "$open" -ge $((i * 9 / 10)) ] ||
		pn_fail "the window was open in only $open of $i rounds"
fi
