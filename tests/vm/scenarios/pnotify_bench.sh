# Smoke test of the benchmark module under each sync= mode: readers dispatch
# while writers register and unregister, neither side starves, and the
# dispatch is timed for a task nobody follows and for one in a job.
. /lib/pn/lib.sh

field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }

for sync in rwsem percpu srcu; do
	pn_load pnotify "sync=$sync"
	pn_load job
	pn_load pnotify_bench
	echo "rw 2 1 300" > /proc/pnotify_bench || pn_fail "rw benchmark"
	out=$(cat /proc/pnotify_bench)
	pn_log "$sync: $out"
	[ "$(echo "$out" | field reader_ops)" -gt 0 ] || pn_fail "$sync: readers starved"
	[ "$(echo "$out" | field writer_ops)" -gt 0 ] || pn_fail "$sync: writers starved"
	echo "cost 1000" > /proc/pnotify_bench || pn_fail "cost outside a job"
	pn_assert_eq "$sync: unfollowed" 0 "$(field followed < /proc/pnotify_bench)"
	# shellcheck disable=SC2016
	out=$(jobctl create -- sh -c 'echo "cost 1000" > /proc/pnotify_bench && cat /proc/pnotify_bench' | tail -n 1)
	pn_assert_eq "$sync: followed in a job" 1 "$(echo "$out" | field followed)"
	pn_unload pnotify_bench
	pn_unload job
	pn_unload pnotify
done
