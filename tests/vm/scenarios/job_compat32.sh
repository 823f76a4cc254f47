# A 32-bit caller (compat_ioctl): the 32-bit jobctl sees and does what the
# 64-bit one does, and the whole jobtest passes as a 32-bit program.
. /lib/pn/lib.sh

pn_load pnotify
pn_load job hid=0x2a
jobctl32 create -- sleep 600 > /tmp/jid &
pn_wait_file /tmp/jid
jid=$(cat /tmp/jid)
case $jid in 0x0000002a0000000?) ;; *) pn_fail "32-bit create printed '$jid'" ;; esac
pn_assert_eq "pids" "$(jobctl pids "$jid")" "$(jobctl32 pids "$jid")"
pn_assert_eq "list" "$(jobctl list --json)" "$(jobctl32 list --json)"
jobctl32 show "$jid" | grep -q "prime pid *$(jobctl pids "$jid")" ||
	pn_fail "32-bit show disagrees"

sleep 600 &
other=$!
jobctl32 attach "$other" "$jid" || pn_fail "32-bit attach"
jobctl pids "$jid" | grep -qx "$other" || pn_fail "attached pid not in the job"
jobctl32 detach -p "$other" || pn_fail "32-bit detach"
jobctl pids "$jid" | grep -qx "$other" && pn_fail "detached pid still in the job"
kill "$other"

jobctl32 sethid 2b || pn_fail "32-bit sethid"
jobctl create -- true > /tmp/jid2
grep -q '^0x0000002b' /tmp/jid2 || pn_fail "sethid from 32 bits not in effect: $(cat /tmp/jid2)"

jobctl32 wait "$jid" > /tmp/status &
waiter=$!
pn_wait_blocked "$waiter"
jobctl32 kill -TERM "$jid" || pn_fail "32-bit kill"
wait "$waiter" || pn_fail "32-bit wait failed"
grep -q 'SIGTERM' /tmp/status || pn_fail "32-bit wait printed '$(cat /tmp/status)'"
jobctl32 acct "$jid" | grep -q 'killed by SIGTERM' || pn_fail "32-bit acct"

# On a slow (debug) kernel, the ABI tests only: the rest is job_jobtest's.
if pn_slow; then
	jobtest32 --slow "jid list" "detach" "attach" "bad input" > /tmp/jobtest32.log 2>&1
else
	jobtest32 > /tmp/jobtest32.log 2>&1
fi
rc=$?
tail -n 5 /tmp/jobtest32.log
[ "$rc" = 0 ] && grep -q 'Great.  All tests completed, no errors' /tmp/jobtest32.log ||
	{ cat /tmp/jobtest32.log; pn_fail "jobtest as a 32-bit program"; }
pn_unload job
pn_unload pnotify
