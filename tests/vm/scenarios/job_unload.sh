# Unloading job.ko while jobs live, one member stopped (SIGSTOP), and a
# waiter is blocked in JOB_WAITJID: every job ends, the waiter wakes, the
# processes run on outside any job.  Unloading keyring_bridge while a
# stopped member has its keyring install queued, then job and pnotify: no
# unload waits for the member to run again, and /proc/pnotify stays
# readable meanwhile.  An unload that waited would never end: each must
# end within 10 s (60 s on a debug kernel, where an unload's RCU Tasks
# grace periods alone have taken 9 s on a loaded host).
. /lib/pn/lib.sh

limit=10
pn_slow && limit=60

pn_load pnotify
pn_load job
jobctl create -- sleep 600 > /tmp/jid &
creator=$!
pn_wait_file /tmp/jid
jid=$(cat /tmp/jid)
member=$(jobctl pids "$jid") || pn_fail "no job $jid"
sleep 600 &
halted=$!
kill -STOP "$halted"
jobctl attach "$halted" "$jid" || pn_fail "attach a stopped process"
jobctl wait "$jid" > /tmp/wait.out 2>&1 &
waiter=$!
pn_wait_blocked "$waiter"
started=$(date +%s)
timeout $((limit * 2)) rmmod job ||
	pn_fail "rmmod job with a waiter blocked and a member stopped"
took=$(($(date +%s) - started))
[ "$took" -le "$limit" ] || pn_fail "rmmod job took ${took} s"
wait "$waiter"
pn_log "waiter: $(cat /tmp/wait.out)"
kill -0 "$member" || pn_fail "the member died with the module"
kill -0 "$halted" || pn_fail "the stopped member died with the module"
kill -KILL "$halted"
wait "$halted"
[ -e /proc/job ] && pn_fail "/proc/job is still there"
pn_wait_until "pnotify to follow no task" grep -q '^tasks: 0$' /proc/pnotify
kill "$member"
wait "$creator"

pn_load job
pn_load keyring_bridge
sleep 600 &
stopped=$!
kill -STOP "$stopped"
jobctl create -- sleep 600 > /tmp/jid2 &
creator=$!
pn_wait_file /tmp/jid2
jid2=$(cat /tmp/jid2)
# keyring_bridge queues the install of the job's keyring in the member's
# own context (pnotify_call), which a stopped process does not reach.
jobctl attach "$stopped" "$jid2" || pn_fail "attach a stopped process"
grep -q '^works_inflight: [1-9]' /proc/pnotify ||
	pn_fail "no work queued for the stopped member: $(cat /proc/pnotify)"
started=$(date +%s)
timeout $((limit * 2)) rmmod keyring_bridge &
unload=$!
# Read while the unload runs: a reader blocked there would hang the scenario.
for n in 1 2 3 4 5; do
	grep -q '^tasks:' /proc/pnotify || pn_fail "/proc/pnotify unreadable"
done
wait "$unload" || pn_fail "rmmod keyring_bridge with a stopped member failed"
took=$(($(date +%s) - started))
[ "$took" -le "$limit" ] || pn_fail "rmmod keyring_bridge took ${took} s"
grep -q '^tasks:' /proc/pnotify || pn_fail "/proc/pnotify unreadable"
# The dropped call is still queued on the stopped process, and pnotify's
# text runs it: unloading pnotify takes it off instead of waiting.
jobctl detach -p "$stopped" || pn_fail "detach the stopped process"
jobctl kill -KILL "$jid2" || pn_fail "kill $jid2"
wait "$creator"
pn_unload job
grep -q '^works_inflight: [1-9]' /proc/pnotify ||
	pn_fail "the stopped process's call is no longer queued: $(cat /proc/pnotify)"
started=$(date +%s)
timeout $((limit * 2)) rmmod pnotify ||
	pn_fail "rmmod pnotify with a work queued on a stopped process"
took=$(($(date +%s) - started))
[ "$took" -le "$limit" ] || pn_fail "rmmod pnotify took ${took} s"
pn_log "unloaded pnotify with a work queued on a stopped process (${took} s)"
# Running again, the process finds no work of the unloaded module to run.
kill -CONT "$stopped"
usleep 200000
kill -0 "$stopped" || pn_fail "the stopped process died when continued"
kill "$stopped"
wait "$stopped" || pn_log "the continued process ended by SIGTERM"
