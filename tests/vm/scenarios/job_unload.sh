# Unloading job.ko while jobs live and a waiter is blocked in JOB_WAITJID:
# every job ends, the waiter wakes, the processes run on outside any job.
. /lib/pn/lib.sh

pn_load pnotify
pn_load job
jobctl create -- sleep 600 > /tmp/jid &
creator=$!
pn_wait_file /tmp/jid
jid=$(cat /tmp/jid)
member=$(jobctl pids "$jid") || pn_fail "no job $jid"
jobctl wait "$jid" > /tmp/wait.out 2>&1 &
waiter=$!
pn_wait_blocked "$waiter"
timeout 60 rmmod job || pn_fail "rmmod job with a waiter blocked"
wait "$waiter"
pn_log "waiter: $(cat /tmp/wait.out)"
kill -0 "$member" || pn_fail "the member died with the module"
[ -e /proc/job ] && pn_fail "/proc/job is still there"
pn_wait_until "pnotify to follow no task" grep -q '^tasks: 0$' /proc/pnotify
kill "$member"
wait "$creator"
pn_unload pnotify
