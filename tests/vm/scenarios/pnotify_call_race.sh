# A queued pnotify_call() against the end of its subscription.  A call's
# work takes its call off the subscription, then tries for a reference;
# the subscription's end, which holds none, must wait for that section
# before it frees the subscription.  The test build spins there
# (test_delay_call_us, 0.5 s) while an unsubscribe, slowed just enough to
# come second (test_delay_end_us, 0.1 s), ends the subscription.  Each
# round subscribes a sleeping process, queues a call to it and unsubscribes
# it: in most rounds the unsubscribe must have waited for the work's
# section (it takes 0.3 s or more), and the call must not have run.  An end
# that does not wait fails that on any kernel, and on the debug kernels
# KASAN reports the subscription freed under the work.  The process and
# the shell are pinned to CPUs of their own: a work spinning where the
# shell runs would hold the unsubscribe back for another reason.  Skipped
# without the test build's knobs, or with one CPU.
. /lib/pn/lib.sh

[ "$(nproc)" -ge 2 ] || pn_skip "two CPUs needed: one spins in the call's work"
pn_load pnotify
pn_test_build test_delay_call_us || {
	pn_unload pnotify
	pn_skip "the test build's knobs widen the window"
}
echo 500000 > /sys/module/pnotify/parameters/test_delay_call_us
echo 100000 > /sys/module/pnotify/parameters/test_delay_end_us
pn_load pnotify_testsub
calls() { sed -n 's/^call: //p' /proc/pnotify_testsub; }
# The uptime in hundredths of a second, in $cs, read without a fork: a
# fork and exec between the call and the unsubscribe would eat into the
# work's spin on a slow kernel.
uptime_cs() {
	read -r _up _ < /proc/uptime
	cs=${_up%.*}${_up#*.}
}

taskset -c 1 sleep 600 &
target=$!
taskset -p -c 0 $$ > /dev/null || pn_fail "cannot pin the shell to CPU 0"
rounds=10
waited=0
i=0
while [ "$i" -lt "$rounds" ]; do
	echo "subscribe $target" > /proc/pnotify_testsub ||
		pn_fail "round $i: cannot subscribe pid $target"
	echo "call $target" > /proc/pnotify_testsub ||
		pn_fail "round $i: cannot queue a call to pid $target"
	uptime_cs
	start=$cs
	echo "unsubscribe $target" > /proc/pnotify_testsub ||
		pn_fail "round $i: cannot unsubscribe pid $target"
	uptime_cs
	[ $((cs - start)) -lt 30 ] || waited=$((waited + 1))
	i=$((i + 1))
done
ran=$(calls)
pn_log "unsubscribes that waited for the call's work: $waited of $rounds; calls run: $ran"
[ "$waited" -ge $((rounds / 2)) ] ||
	pn_fail "$waited of $rounds unsubscribes waited for the call's work: the end of a subscription must wait for a work that took its call off"
[ "$ran" -le $((rounds / 2)) ] ||
	pn_fail "$ran of $rounds calls ran: the unsubscribe did not race the call's work"
kill "$target"
wait "$target" 2>/dev/null
echo 0 > /sys/module/pnotify/parameters/test_delay_call_us
echo 0 > /sys/module/pnotify/parameters/test_delay_end_us
pn_unload pnotify_testsub
pn_unload pnotify
