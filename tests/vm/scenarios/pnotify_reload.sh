# pnotify and the test subscriber are unloaded and reloaded 50 times during
# a fork storm; afterwards nothing is left: no entries, no subscriptions.
. /lib/pn/lib.sh

rounds=$(pn_scale 50)
pnotify_test storm 2 600 > /tmp/storm.log &
storm=$!
sleep 1
i=0
while [ "$i" -lt "$rounds" ]; do
	insmod /lib/pn/modules/pnotify.ko || pn_fail "round $i: insmod pnotify"
	insmod /lib/pn/modules/pnotify_testsub.ko init_all=1 ||
		pn_fail "round $i: insmod pnotify_testsub"
	usleep 100000
	live=$(awk '$1 == "live:" { print $2 }' /proc/pnotify_testsub)
	rmmod pnotify_testsub || pn_fail "round $i: rmmod pnotify_testsub"
	pn_wait_until "pnotify's entries to go" grep -q '^tasks: 0$' /proc/pnotify
	grep -q '^works_inflight: 0$' /proc/pnotify || pn_fail "round $i: works left"
	rmmod pnotify || pn_fail "round $i: rmmod pnotify"
	i=$((i + 1))
done
pn_log "$rounds rounds, last round followed $live tasks"
kill "$storm"
wait "$storm"
cat /tmp/storm.log
