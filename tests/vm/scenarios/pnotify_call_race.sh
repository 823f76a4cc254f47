# A queued pnotify_call() against the end of its subscription.  A call's
# work takes its call off the subscription, then tries for a reference;
# the subscription's end, which holds none, must wait for that section
# before it frees the subscription.  The test build spins there
# (test_delay_call_us, 0.5 s) while an unsubscribe, slowed just enough to
# come second (test_delay_end_us, 0.1 s), ends the subscription: on the
# debug kernels KASAN reports a subscription freed under the work.  Each
# round subscribes a sleeping process, queues a call to it and unsubscribes
# it; most rounds must end the subscription first, so that the call never
# runs.  The process and the shell are pinned to CPUs of their own: a work
# spinning where the shell runs would hold the unsubscribe back.  Skipped
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

taskset -c 1 sleep 600 &
target=$!
taskset -p -c 0 $$ > /dev/null || pn_fail "cannot pin the shell to CPU 0"
rounds=10
i=0
while [ "$i" -lt "$rounds" ]; do
	echo "subscribe $target" > /proc/pnotify_testsub ||
		pn_fail "round $i: cannot subscribe pid $target"
	echo "call $target" > /proc/pnotify_testsub ||
		pn_fail "round $i: cannot queue a call to pid $target"
	echo "unsubscribe $target" > /proc/pnotify_testsub ||
		pn_fail "round $i: cannot unsubscribe pid $target"
	i=$((i + 1))
done
ran=$(calls)
pn_log "calls run: $ran of $rounds (the others' subscriptions ended first)"
[ "$ran" -le $((rounds / 2)) ] ||
	pn_fail "$ran of $rounds calls ran: the unsubscribe did not race the call's work"
kill "$target"
wait "$target" 2>/dev/null
echo 0 > /sys/module/pnotify/parameters/test_delay_call_us
echo 0 > /sys/module/pnotify/parameters/test_delay_end_us
pn_unload pnotify_testsub
pn_unload pnotify
