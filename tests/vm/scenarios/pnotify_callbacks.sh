# Every way of making a task is followed, with exact fork/exec/exit counts,
# by a subscriber whose callbacks sleep, allocate and take an rwsem; under
# each guard, then with the exit's atomic step, leave(), ending half of the
# subscriptions in the exit hook and handing the other half to exit().
# A process that subscribes as its threads exit keeps no record of them:
# the test build spins 1 ms as each record is entered, and the test goes
# on until a thread began to exit in it, its record refused.  Threads made
# during an attach by threads it has not stocked yet, the cache bypassed
# in the test build, are stocked by it too: their first forks keep their
# children, with the spare records and without (test_spares_skip).  A new
# thread that neither the cache nor its creator can give a record takes a
# spare one (the test build's test_records_skip): its fork at once keeps
# its child; threads made at once beyond the spares, with the spares not
# topped up (test_spares_frozen), have their records made later.  One left
# without a record by its fork hook (test_records_skip and
# test_spares_skip) has it made before it runs; threads made while that
# work is taken (held 200 ms in the test build) have a kworker stock their
# process.
. /lib/pn/lib.sh

for run in srcu rwsem percpu srcu:leave; do
	sync=${run%:leave}
	leave=$([ "$run" = "$sync" ] && echo 0 || echo 1)
	pn_load pnotify sync="$sync"
	pn_load pnotify_testsub leave="$leave"
	grep -q "^sync: $sync" /proc/pnotify || pn_fail "sync=$sync not in effect"
	for t in "forks $(pn_scale 200)" "vforks $(pn_scale 50)" \
		"clone3 $(pn_scale 50)" "spawns $(pn_scale 20)" \
		"threads $(pn_scale 16)" "exit-group $(pn_scale 8)" \
		"drop $(pn_scale 10)" "fail $(pn_scale 10)" "chain $(pn_scale 12)"; do
		# shellcheck disable=SC2086
		pnotify_test $t || pn_fail "$run: pnotify_test $t"
	done
	pnotify_test zombie || pn_fail "$run: zombie"
	p=/sys/module/pnotify/parameters
	! pn_test_build test_delay_record_us ||
		echo 1000 > "$p/test_delay_record_us"
	pnotify_test thread-records "$(pn_scale 100)" ||
		pn_fail "$run: thread-records"
	! pn_test_build test_kits_skip || echo 1 > "$p/test_kits_skip"
	pnotify_test attach-threads "$(pn_scale 50)" ||
		pn_fail "$run: attach-threads"
	if pn_test_build test_spares_skip; then
		echo 1 > "$p/test_spares_skip"
		pnotify_test attach-threads "$(pn_scale 50)" ||
			pn_fail "$run: attach-threads, no spares"
		echo 1 > "$p/test_records_skip"
	fi
	pnotify_test unrecorded-threads "$(pn_scale 50)" ||
		pn_fail "$run: unrecorded-threads"
	! pn_test_build test_spares_skip || echo 0 > "$p/test_spares_skip"
	pnotify_test spare-records "$(pn_scale 50)" ||
		pn_fail "$run: spare-records"
	left=$(awk '$1 == "leave:" { print $2 }' /proc/pnotify_testsub)
	if [ "$leave" = 1 ]; then
		[ "${left:-0}" -gt 0 ] || pn_fail "$run: no exit came through leave()"
		pn_log "$run: $left exits through leave()"
	fi
	cat /proc/pnotify
	pn_unload pnotify_testsub
	pn_unload pnotify
done
