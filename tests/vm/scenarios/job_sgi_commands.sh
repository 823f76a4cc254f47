#!/bin/sh
# SGI's commands on real jobs: every case's exact stdout, stderr and exit
# status in SGI's formats (jstat's tables, jwait's status lines, jkill's line
# a job, the messages and exit codes).  tests/unit/test_sgi_commands covers
# the cases that need no kernel.
# shellcheck source=tests/vm/lib.sh
. /lib/pn/lib.sh

tab=$(printf '\t')
HEADER="JID                OWNER        COMMAND
------------------ ------------ --------------------------------"
PID_HEADER="JID ${tab}${tab}   OWNER ${tab}PID    PPID   COMMAND
------------------ ------------ ------ ------ --------------------------------"
NO_MODULE="The job module is not loaded (modprobe job)."
J1=0x2a00000000000101
J2=0x2a00000000000102
J3=0x2a00000000000103
J4=0x2a00000000000104

# compare NAME STATUS EXPECTED_OUT EXPECTED_ERR RC: /tmp/out and /tmp/err
# against the expected text (a final newline added unless empty).
compare() {
	: > /tmp/want_out
	: > /tmp/want_err
	[ -z "$3" ] || printf '%s\n' "$3" > /tmp/want_out
	[ -z "$4" ] || printf '%s\n' "$4" > /tmp/want_err
	if [ "$5" != "$2" ] || ! cmp -s /tmp/out /tmp/want_out ||
		! cmp -s /tmp/err /tmp/want_err; then
		echo "--- stdout"; cat /tmp/out
		echo "--- expected"; cat /tmp/want_out
		echo "--- stderr"; cat /tmp/err
		echo "--- expected"; cat /tmp/want_err
		pn_fail "$1: status $5 (expected $2) or output differs"
	fi
	pn_log "ok $1"
}

# check NAME STATUS EXPECTED_OUT EXPECTED_ERR CMD...
check() {
	_name=$1 _status=$2 _out=$3 _err=$4
	shift 4
	"$@" > /tmp/out 2> /tmp/err
	compare "$_name" "$_status" "$_out" "$_err" $?
}

# sleeper JID: a job of one "sleep 600" with that JID; sets $pid.
sleeper() {
	jobctl create --jid "$1" -- sleep 600 > /dev/null &
	pid=$!
	pn_wait_until "sleep in job $1" grep -qx sleep "/proc/$pid/comm"
}

row() { printf '%s %-12s %s' "$@"; }
pid_row() { printf '%s %-12s %-6d %-6d %s' "$@"; }

pn_load pnotify
pn_load job hid=0x2a

check "jstat outside any job" 0 "$HEADER
Not attached to any job" "" jstat
check "jstat -p outside any job" 0 "$PID_HEADER
Not attached to any job" "" jstat -p
check "jstat -a without jobs" 0 "$HEADER
<No JIDs found>" "" jstat -a

sleeper $J1
pid1=$pid
check "jstat -j" 0 "$HEADER
$(row $J1 root sleep)" "" jstat -j $J1
check "jstat -j -p" 0 "$PID_HEADER
$(pid_row $J1 root "$pid1" $$ sleep)" "" jstat -j $J1 -p
check "jstat -a" 0 "$HEADER
$(row $J1 root sleep)" "" jstat -a
check "jstat -a -l" 0 "$HEADER" "" jstat -a -l
check "jstat -j: no such job" 1 "$HEADER" "No such job" jstat -j 0xdead
check "jstat -j: not a JID" 1 "" \
	"jstat: 'zz' is not a JID (hex, e.g. 0xab00000000000001)" jstat -j zz

# In a job: its prime process's argv[0]; with -p a row a process (here
# jstat itself, exec'd by the shell that printed its pid).
check "jstat in a job" 0 "$J2
$HEADER
$(row $J2 root sh)" "" jobctl create --jid $J2 -- sh -c 'jstat; true'
jobctl create --jid $J2 -- sh -c 'echo $$; exec jstat -p' > /tmp/out 2> /tmp/err
rc=$?
self=$(sed -n 2p /tmp/out)
compare "jstat -p in a job" 0 "$J2
$self
$PID_HEADER
$(pid_row $J2 root "$self" $$ jstat)" "" $rc
check "jstat -l in a job" 0 "$J2
$HEADER" "" jobctl create --jid $J2 -- jstat -l

check "jkill without a JID" 0 "" "" jkill
check "jkill -0 without a JID" 0 "" "" jkill -0
check "jkill -0" 0 "Processes in job[$J1] sent signal 0." "" jkill -0 $J1
check "jkill as another user" 1 "" "job_killjid: Operation not permitted" \
	pn_as_user 1000 jkill $J1
sleeper $J3
pid3=$pid
check "jkill A BAD B: stops at BAD" 1 "Processes in job[$J1] sent signal 15." \
	"No such job" jkill $J1 0xdead $J3
pn_wait_job_gone $J1
kill -0 "$pid3" || pn_fail "jkill A BAD B signalled B"

# jwait: a job that exits 3 once jwait waits, and one killed by SIGKILL.
mkfifo /tmp/go
jobctl create --jid $J4 -- sh -c 'read x < /tmp/go; exit 3' > /dev/null &
pn_wait_until "job $J4" jobctl pids $J4
jwait $J4 > /tmp/out 2> /tmp/err &
waiter=$!
pn_wait_blocked $waiter
echo go > /tmp/go
wait $waiter
compare "jwait: exit 3" 0 "job[$J4] exit status: 0x300.
${tab}Exit detected with exit status: 0x3 or 3" "" $?
sleeper $J4
jwait $J4 > /tmp/out 2> /tmp/err &
waiter=$!
pn_wait_blocked $waiter
jkill -KILL $J4 > /dev/null
wait $waiter
compare "jwait: SIGKILL" 0 "job[$J4] exit status: 0x9.
${tab}Signal detected with signal: 9" "" $?
check "jwait: no such job" 1 "" "No such job" jwait 0xdead
check "jwait without a JID" 1 "" "Usage: waitjid jid-hex-value" jwait

# jattach and jdetach move a process that is in no job.
sleep 600 &
loner=$!
check "jattach" 0 "" "" jattach $loner $J3
jobctl pids $J3 | grep -qx "$loner" || pn_fail "jattach: $loner is not in $J3"
check "jattach: already in a job" 255 "" "job_attachpid: Invalid argument" \
	jattach $loner $J3
check "jdetach -p" 0 "" "" jdetach -p $loner
check "jdetach -p: not in a job" 1 "" "Not part of a job" jdetach -p $loner
check "jattach: no such job" 255 "" "No such job" jattach $loner 0xdead
check "jattach as another user" 255 "" "job_attachpid: Operation not permitted" \
	pn_as_user 1000 jattach $loner $J3
check "jdetach -j: no such job" 1 "" "No such job" jdetach -j 0xdead
check "jdetach -j" 0 "" "" jdetach -j $J3
pn_wait_job_gone $J3
kill "$loner" "$pid3"

check "jsethid" 0 "" "" jsethid 2b
case $(jobctl create -- true) in
0x0000002b*) pn_log "ok new JIDs carry host id 0x2b" ;;
*) pn_fail "jsethid 2b: a new job's JID does not start with 0x0000002b" ;;
esac
check "jsethid: not hex" 1 "" \
	"jsethid: 'zz' is not a host id (32-bit hex, e.g. 0xab000000)" jsethid zz
check "jsethid as another user" 1 "" "job_sethid: Operation not permitted" \
	pn_as_user 1000 jsethid 2c

pn_unload job
check "jstat without the module" 1 "$HEADER" "$NO_MODULE" jstat
check "jsethid ffffffff without the module" 0 "" "" jsethid ffffffff
check "jsethid without the module" 1 "" "$NO_MODULE" jsethid 2a
pn_unload pnotify
