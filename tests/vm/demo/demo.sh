# The main demo: a job made with jobctl, processes forked in it, listed,
# shown, killed as one, and its accounting record read after it ended.
. /lib/pn/lib.sh

run() {
	echo
	echo "\$ $*"
	"$@"
}

pn_load pnotify
pn_load job hid=0x2a
echo
echo "# A batch job: a shell that forks workers, one of which double-forks"
echo "# and calls setsid to escape, as daemons do."
run jobctl create -- sh -c '
	for i in 1 2 3; do sleep 600 & done
	(setsid sh -c "sleep 600 &" &)
	dd if=/dev/zero of=/dev/null bs=64k count=2000 2>/dev/null
	exec sleep 600' &
sleep 2
run jobctl list
jid=$(jobctl list --json | sed -n 's/.*"jid": *"\(0x[0-9a-f]*\)".*/\1/p' | head -n 1)
[ -n "$jid" ] || pn_fail "no job was listed"
run jobctl show "$jid"
run jstat -j "$jid" -p
echo
echo "# Every process of the job, the escaped daemon included, gets SIGTERM."
run jobctl kill -TERM "$jid"
n=0
while jobctl pids "$jid" > /dev/null 2>&1; do
	n=$((n + 1))
	[ "$n" -lt 50 ] || pn_fail "the job did not end"
	usleep 100000
done
run jobctl list
echo
echo "# The job is gone; its final accounting record stays until it is read."
run jobctl acct "$jid"
ps -o pid,args | grep -q '[s]leep 600' && pn_fail "a process escaped the kill"
pn_unload job
pn_unload pnotify
