# pnotify unloaded while a member of a job is held in its exit, between
# pnotify's exit hook (before exit_files()) and its exit work: the member
# blocks in the flush of a file it has open (pnotify_testflush.ko's
# device, whose flush by an exiting task sleeps until released, as a flush
# to a stopped FUSE daemon of the user's own mount does).  keyring_bridge,
# job and pnotify are unloaded while it is held: each rmmod must complete
# within 10 s (30 s on a slow debug kernel, where pnotify's RCU Tasks wait
# alone took 9 s on a loaded host; the hold lasts 60 s) with the member
# still held, instead of waiting for its exit
# work, which only the member itself could run, when the flush ends; and
# meanwhile a waitjid waits for the job's end, which that work runs.
# Then the member is released and exits, running nothing of the unloaded
# module (a work left queued would run freed text: a splat, or a crash).
# Second part: a member held in the release of that file, in
# exit_task_work(), where its exit work is taken to run after the release
# and cannot be taken off: rmmod pnotify waits, says every 5 s that it
# waits for that member (its name and pid), and ends once it is released.
. /lib/pn/lib.sh

dev=/dev/pnotify_testflush
pn_load pnotify
pn_load job
pn_load keyring_bridge
pn_load pnotify_testflush
pn_wait_until "$dev" test -c "$dev"

# start_member: a job's first member, its pid in $member, its JID in
# /tmp/jid; it exits once /tmp/go exists.  It opens the device on fd 3,
# for reading and writing (the descriptors whose flush holds), and keeps
# it until it exits; its children (usleep) do not have it.
start_member() {
	rm -f /tmp/jid /tmp/go
	jobctl create -- sh -c "exec 3<>$dev; until [ -e /tmp/go ]; do usleep 20000 3<&-; done" \
		> /tmp/jid &
	member=$!
	pn_wait_file /tmp/jid
}

start_member
jid=$(cat /tmp/jid)
jobctl pids "$jid" | grep -qx "$member" || pn_fail "$member is not in job $jid"
touch /tmp/go
pn_wait_until "the member held in its exit's flush" grep -q '^held 1 ' "$dev"
pn_log "member $member held in its exit: $(grep -E '^(State|PPid):' "/proc/$member/status" | tr '\n\t' '  ')"
# Its exit hook has run: its exit work is queued, not yet run.
grep -q '^works_inflight: [1-9]' /proc/pnotify ||
	pn_fail "no work in flight for the held member: $(cat /proc/pnotify)"
# The hook took the job's last member out of it; the job's end, in the
# exit work, is still to come: a waitjid waits for it.
rc=0
timeout 2 jobctl wait "$jid" > /dev/null 2>&1 || rc=$?
[ "$rc" = 124 ] || [ "$rc" = 143 ] ||
	pn_fail "waitjid returned (status $rc) before the job's end, its last member held in its exit"

limit=100
pn_slow && limit=300
started=$(date +%s)
for m in keyring_bridge job pnotify; do
	began=$(date +%s)
	rmmod "$m" &
	unload=$!
	n=0
	while kill -0 "$unload" 2>/dev/null && [ "$n" -lt "$limit" ]; do
		usleep 100000
		n=$((n + 1))
	done
	if kill -0 "$unload" 2>/dev/null; then
		# Release the member, so that the unload ends and the VM too.
		echo 1 > "$dev"
		wait "$unload"
		wait "$member"
		pn_fail "rmmod $m not done after $((limit / 10)) s with a member held in its exit"
	fi
	wait "$unload" || pn_fail "rmmod $m failed"
	pn_log "unloaded $m (in $(($(date +%s) - began)) s, $(($(date +%s) - started)) s since the first rmmod)"
done
[ -e /sys/module/pnotify ] && pn_fail "pnotify is still loaded"
grep -q '^held 1 ' "$dev" || pn_fail "the member is no longer held: $(cat "$dev")"
kill -0 "$member" || pn_fail "the held member is gone"
dmesg | grep 'pnotify: unload: waiting' &&
	pn_fail "the unload waited for the held member"

# Released, the member ends its exit with nothing of pnotify to run.
echo 1 > "$dev"
wait "$member"
pn_log "the member exited with status $?"
pn_assert_eq "tasks held" "held 0 released 1" "$(cat "$dev")"

params=/sys/module/pnotify_testflush/parameters
echo 0 > "$params/hold_flush"
echo 1 > "$params/hold_release"
echo 0 > "$dev"
pn_load pnotify
pn_load job
start_member
touch /tmp/go
pn_wait_until "the member held in its exit's release" grep -q '^held 1 ' "$dev"
grep -q '^works_inflight: [1-9]' /proc/pnotify ||
	pn_fail "the member's exit work ran before its release: $(cat /proc/pnotify)"
pn_unload job
rmmod pnotify &
unload=$!
pn_wait_until "the unload's warning naming the member" sh -c \
	"dmesg | grep -q 'pnotify: unload: waiting for sh (pid $member) to run its exit work'"
kill -0 "$unload" || pn_fail "rmmod pnotify ended with the member's exit work taken to run"
dmesg | grep 'pnotify: unload: waiting'
echo 1 > "$dev"
wait "$unload" || pn_fail "rmmod pnotify failed"
wait "$member"
pn_log "unloaded pnotify once the member ran its exit work (status $?)"

# Third part, in the test build: rmmod job racing the exit hook of a job's
# last member, both drawn out (the hook spins 100 ms on each subscription
# it ends, test_delay_leave_us; the unregister sleeps 100 ms after its
# grace period, test_delay_unregister_us), the member then held in its
# flush.  Each unregister must find the subscription wherever the hook has
# it (left to the exit work, or linked again after leave()) and end within
# the limit, the member still held.  20 rounds, the member let go 0 to
# 190 ms after rmmod starts.
pn_load pnotify
if pn_test_build test_delay_leave_us; then
	echo 1 > "$params/hold_flush"
	echo 0 > "$params/hold_release"
	echo 100000 > /sys/module/pnotify/parameters/test_delay_leave_us
	echo 100000 > /sys/module/pnotify/parameters/test_delay_unregister_us
	r=0
	while [ "$r" -lt 20 ]; do
		echo 0 > "$dev"
		pn_load job
		start_member
		rmmod job &
		unload=$!
		usleep $((r * 10000))
		touch /tmp/go
		n=0
		while kill -0 "$unload" 2>/dev/null && [ "$n" -lt "$limit" ]; do
			usleep 100000
			n=$((n + 1))
		done
		held=$(cat "$dev")
		echo 1 > "$dev"
		wait "$member"
		if ! wait "$unload" || [ "$n" -ge "$limit" ]; then
			pn_fail "round $r: rmmod job not done after $((limit / 10)) s racing its last member's exit ($held)"
		fi
		r=$((r + 1))
	done
	echo 0 > /sys/module/pnotify/parameters/test_delay_leave_us
	echo 0 > /sys/module/pnotify/parameters/test_delay_unregister_us
	pn_log "rmmod job raced its last member's exit hook 20 times, each done in time"
fi
pn_unload pnotify
pn_unload pnotify_testflush
