# Every module removed and reinserted 100 times while a fork storm runs
# inside jobs, with two subscribers (job and the test subscriber).  After
# each round nothing of pnotify's is left.
. /lib/pn/lib.sh

rounds=$(pn_scale 100)
i=0
while [ "$i" -lt "$rounds" ]; do
	insmod /lib/pn/modules/pnotify.ko || pn_fail "round $i: insmod pnotify"
	insmod /lib/pn/modules/job.ko || pn_fail "round $i: insmod job"
	insmod /lib/pn/modules/pnotify_testsub.ko init_all=1 ||
		pn_fail "round $i: insmod pnotify_testsub"
	rm -f /tmp/jid
	jobctl create -- pnotify_test storm 2 2 > /tmp/jid &
	storm=$!
	pn_wait_file /tmp/jid
	# The JID is the first line: the storm's own output follows it there
	# when the host is slow enough for the storm to end first.
	jid=$(head -n 1 /tmp/jid)
	jobctl acct "$jid" > /dev/null || pn_fail "round $i: job $jid unknown"
	usleep 200000
	rmmod pnotify_testsub || pn_fail "round $i: rmmod pnotify_testsub"
	rmmod job || pn_fail "round $i: rmmod job"
	pn_wait_until "pnotify's entries to go" grep -q '^tasks: 0$' /proc/pnotify
	rmmod pnotify || pn_fail "round $i: rmmod pnotify"
	wait "$storm"
	i=$((i + 1))
done
pn_log "$rounds rounds"
