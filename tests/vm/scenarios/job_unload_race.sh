# rmmod keyring_bridge, job and the test subscriber while members exit (a
# forker's children, three at a time) and are detached and attached again
# (a loop): no splat, no leak, every subscription of the test subscriber
# had its exit callback exactly once (it checks each at its unregister,
# WARNs otherwise, and logs the count), and no fork failed.  In the
# debug-unload boot (the test build, slub_debug=FZP preempt=full) the
# windows are widened: an unregister or a detach sleeps 50 ms between
# referencing a subscription and ending it, an exiting task 50 ms before
# dropping each subscription it unlinked.  100 rounds, or as many as fit
# in 200 s (PN_UNLOAD_ROUNDS, PN_UNLOAD_BUDGET_S); on the stock kernel 10
# (scaled), without the delays; skipped in the other boots of the test
# build; failed where the lane requires the test build and finds another.
. /lib/pn/lib.sh

knob=/sys/module/pnotify/parameters
pn_load pnotify
if pn_test_build test_delay_end_us; then
	grep -q 'slub_debug=' /proc/cmdline || {
		rmmod pnotify
		pn_skip "the test build's run is in the slub_debug=FZP preempt=full boot"
	}
	[ "$(cat /sys/kernel/slab/kmalloc-64/poison)" = 1 ] ||
		pn_fail "slab poisoning is off"
	echo 50000 > "$knob/test_delay_end_us"
	echo 50000 > "$knob/test_delay_exit_us"
	pn_log "windows widened: ending a subscription and exit sleep 50 ms; slabs poisoned"
	rounds=${PN_UNLOAD_ROUNDS:-100}
else
	rounds=${PN_UNLOAD_ROUNDS:-$(pn_scale 10)}
fi
budget=${PN_UNLOAD_BUDGET_S:-200}

# The forker, for the whole scenario: each round attaches it to the job of
# the round, whose first member (an anchor) is named in /tmp/anchor, and
# the test subscriber follows it.  Its children, the newest subscriptions
# of each subscriber, are the ones an unregister ends last: some of them
# exit meanwhile.
sh -c 'while :; do /bin/true & /bin/true & /bin/true & wait; usleep 10000; done' &
forker=$!
# Every member but the anchor leaves, and comes back: the forker (and its
# children of the moment) is detached while it forks.
(
	while :; do
		read -r jid anchor < /tmp/anchor 2>/dev/null
		pids=$(jobctl pids "$jid" 2>/dev/null) || { usleep 20000; continue; }
		moved=
		for p in $pids; do
			[ "$p" != "$anchor" ] &&
				jobctl detach -p "$p" 2>/dev/null && moved="$moved $p"
		done
		for p in $moved; do
			jobctl attach "$p" "$jid" 2>/dev/null
		done
		usleep 10000
	done
) 2>/dev/null &
churn=$!

begun=$(date +%s)
i=0
while [ "$i" -lt "$rounds" ] && [ $(($(date +%s) - begun)) -lt "$budget" ]; do
	insmod "$PN_MODDIR/job.ko" || pn_fail "round $i: insmod job"
	insmod "$PN_MODDIR/keyring_bridge.ko" || pn_fail "round $i: insmod keyring_bridge"
	insmod "$PN_MODDIR/pnotify_testsub.ko" sleep_ms=0 ||
		pn_fail "round $i: insmod pnotify_testsub"
	rm -f /tmp/jid
	jobctl create -- sleep 3600 > /tmp/jid &
	anchor=$!
	pn_wait_file /tmp/jid
	jid=$(cat /tmp/jid)
	echo "$jid $anchor" > /tmp/anchor
	jobctl attach "$forker" "$jid" 2>/dev/null
	echo "subscribe $forker" > /proc/pnotify_testsub ||
		pn_fail "round $i: subscribe the forker"
	usleep 100000
	# Each unregister ends its subscriptions while members exit and move.
	timeout 60 rmmod keyring_bridge || pn_fail "round $i: rmmod keyring_bridge"
	timeout 60 rmmod job || pn_fail "round $i: rmmod job"
	timeout 60 rmmod pnotify_testsub || pn_fail "round $i: rmmod pnotify_testsub"
	kill "$anchor"
	wait "$anchor"
	i=$((i + 1))
	[ $((i % 10)) = 0 ] && pn_log "round $i of $rounds"
done
kill -KILL "$churn" "$forker"
wait "$forker"
pn_log "$i rounds in $(($(date +%s) - begun)) s"
# What the budget cut short must still be a test.
[ "$i" = "$rounds" ] || [ "$i" -ge 5 ] || pn_fail "only $i rounds in the budget"
# The balance the test subscriber logged at each unload.
dmesg | grep 'testsub: [0-9]* subscriptions' > /tmp/balance
[ "$(wc -l < /tmp/balance)" = "$i" ] ||
	pn_fail "$(wc -l < /tmp/balance) balances logged for $i rounds"
grep -v ' 0 unbalanced$' /tmp/balance && pn_fail "unbalanced subscriptions"
total=$(awk '{ for (f = 1; f < NF; f++) if ($(f + 1) ~ /^subscriptions/) n += $f } END { print n + 0 }' /tmp/balance)
pn_log "$total subscriptions of the test subscriber, each ended once"
pn_wait_until "pnotify to follow no task" grep -q '^tasks: 0$' /proc/pnotify
cat /proc/pnotify
# No child was killed for its parent's kit (one block short while a
# subscriber unregistered, say).
grep -q '^fork_failures: 0$' /proc/pnotify || pn_fail "forks failed"
pn_unload pnotify
