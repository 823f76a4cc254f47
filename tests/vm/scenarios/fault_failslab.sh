# Fault injection: slab allocations fail at random, in the kits the works
# of forking threads make (the next fork's child then killed before it
# runs) and in the callbacks, while a job forks.  No child may run outside
# the job, nothing may leak or splat.
. /lib/pn/lib.sh

F=/sys/kernel/debug/failslab
[ -d "$F" ] || pn_skip "this kernel has no failslab (CONFIG_FAILSLAB)"

pn_load pnotify
pn_load job
pn_load pnotify_testsub
forks=$(pn_scale 10000)
# Only tasks with make-it-fail fail: the filter goes on before the rate.
echo Y > "$F/task-filter"
echo N > "$F/ignore-gfp-wait"
echo 0 > "$F/verbose"
echo 0 > "$F/space"
echo 1 > "$F/interval"
echo 1000000 > "$F/times"
# 2%: about half the forks succeed, so that the allocations of the hooks and
# callbacks of the followed ones fail too, not only the fork's own.
echo 2 > "$F/probability"
# Only the tasks of the job fail (make-it-fail is inherited at fork).
jobctl create -- sh -c "echo subscribe > /proc/pnotify_testsub;
	exec forkexit -q -j -F $forks" > /tmp/out
rc=$?
echo 0 > "$F/probability"
cat /tmp/out
[ "$rc" = 0 ] || pn_fail "forkexit -j failed: a child escaped the job (rc=$rc)"
grep -q 'escaped=0' /tmp/out || pn_fail "children escaped: $(tail -n 1 /tmp/out)"
injected=$((1000000 - $(cat "$F/times")))
pn_log "$injected allocations failed on purpose"
[ "$injected" -gt 0 ] || pn_fail "no failure was injected"
cat /proc/pnotify
ours=$(awk '$1 == "fork_failures:" { n += $2 } $1 ~ /^(job|testsub)$/ { n += $7 }
	END { print n + 0 }' /proc/pnotify)
pn_log "$ours failures in pnotify's hooks and callbacks"
[ "$ours" -gt 0 ] || pn_fail "no failure reached pnotify's own allocations"
grep -q 'escaped=0' /tmp/out || pn_fail "children escaped"

# Execs under the same failures: none may skip its exec callback for want
# of memory (keyring_bridge gives a job's keyring up in one).  Each child
# execs a script that, failures off, reads its subscription's count: 0 is
# a skip (exit 3), 1 a check made (exit 0), anything else no check (exit
# 4 or 5).  At least 250 checks: a skip in one exec work in 50 would show
# in all but 1 run in 150.  A test build takes the snapshot of every exec
# on the heap, the path beyond 4 subscriptions.
execs=2000 checks_min=250
cat > /tmp/exec-check <<'EOF'
#!/bin/sh
tries=0
until echo 0 > /proc/self/make-it-fail; do
	tries=$((tries + 1))
	[ "$tries" -lt 100 ] || exit 5
done 2> /dev/null || exit 5
# Read by the shell itself: a child would read its own subscription.
count=
while read -r word1 word2 value; do
	[ "$word1 $word2" != "execs here:" ] || count=$value
done < /proc/pnotify_testsub
case $count in
0) echo "pid $$" >> /tmp/exec-skips; exit 3 ;;
1) exit 0 ;;
esac
exit 4
EOF
chmod +x /tmp/exec-check
rm -f /tmp/exec-skips
heap=/sys/module/pnotify/parameters/test_snapshot_on_stack
[ ! -e "$heap" ] || echo 0 > "$heap"
echo 2 > "$F/probability"
sh -c "echo subscribe > /proc/pnotify_testsub &&
	exec forkexit -q -F -x /tmp/exec-check $execs" > /tmp/out ||
	pn_fail "forkexit -x failed: $(cat /tmp/out)"
echo 0 > "$F/probability"
[ ! -e "$heap" ] || echo 4 > "$heap"
pn_log "$(cat /tmp/out)"
[ ! -s /tmp/exec-skips ] ||
	pn_fail "$(wc -l < /tmp/exec-skips) execs ran without their exec callback"
checks=$(sed -n 's/.* ran=\([0-9]*\).*/\1/p' /tmp/out)
[ "${checks:-0}" -ge "$checks_min" ] ||
	pn_fail "only ${checks:-0} execs checked their exec callback, not $checks_min"
# A job whose forks keep their children (forkways failslab keep: fault
# injection on once it runs, no timer, no threads): the kit cache empties,
# and every fork after leaves its kits to works, under the same failures.
# A fork whose kit a work could not make has its child killed before it
# runs (counted as pnotify's fork failures, and by forkways); every other
# fork returns once, its child in the job.
failures=$(sed -n 's/^fork_failures: //p' /proc/pnotify)
# Its forks must empty the cache before any work runs: first shrink it.
echo 2 > /proc/sys/vm/drop_caches
echo 2 > "$F/probability"
jobctl create -- forkways 200 failslab keep > /tmp/out 2>&1
echo 0 > "$F/probability"
pn_log "$(tail -n 3 /tmp/out | tr '\n' ' ')"
grep -q "rounds, .* failed" /tmp/out || pn_fail "forkways did not finish: $(cat /tmp/out)"
# A fork() callback that fails kills its child: not counted here.
! grep -q "is in job" /tmp/out ||
	pn_fail "a child that ran is outside the job: $(cat /tmp/out)"
failures=$(($(sed -n 's/^fork_failures: //p' /proc/pnotify) - failures))
pn_log "$failures forks found no kit, their work having found no memory"
[ "$failures" -gt 0 ] || pn_fail "no refill work's allocation failed"
pn_unload pnotify_testsub
pn_unload job
pn_wait_until "pnotify's entries to go" grep -q '^tasks: 0$' /proc/pnotify
grep -q '^works_inflight: 0$' /proc/pnotify ||
	pn_fail "$(grep works_inflight /proc/pnotify) with no task followed"
pn_unload pnotify
