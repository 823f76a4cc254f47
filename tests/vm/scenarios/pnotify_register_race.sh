# Registering a subscriber while the tasks it will follow fork and join
# jobs (keyring_bridge, whose init() takes every job member):
# - members forked during its init walk are followed too: once it is
#   loaded, every member has the job's keyring as session keyring (taken
#   by its own join, or inherited from a member whose join had settled);
# - a member's exec as nobody meanwhile (su in root's job) gives the job's
#   keyring up, from the first join that settles on: its su was forked
#   from a member whose join had settled, unsubscribed, and only the exec
#   watcher sees it.  In the test build the walk sleeps after each member
#   it takes (test_delay_init_us), seconds in all, and the loop of su is
#   among the first members it takes: every su in that time is in the
#   window;
# - the walk ends within its passes ("tasks kept forking during init");
# - a job joined before pnotify_register() has counted it (its job
#   notifier is live first, and the registration waits for another
#   subscriber's slow unregister) forks as any other: the child runs.
. /lib/pn/lib.sh

followers() { awk -v k="$1" '$1 == k { print $2 }' /proc/pnotify; }

pn_load pnotify
pn_load job
forks=$(pn_scale 400)
sleepers=$(pn_scale 150)
# Each member blocks on /tmp/go, held open here, until released by a
# line of its own, then reports its session keyring.
member='read x < /tmp/go; keyctl rdescribe @s >> /tmp/ses'
mkfifo /tmp/go
exec 3<>/tmp/go
! pn_test_build test_delay_init_us ||
	echo $((3000000 / (sleepers + forks / 10))) > /sys/module/pnotify/parameters/test_delay_init_us
for round in 1 2; do
	rm -f /tmp/forker.done /tmp/ses /tmp/stop /tmp/foreign
	# The sleepers lengthen the walk before the forker's turn.
	jobctl create -- sh -c "( until [ -e /tmp/stop ]; do su -s /bin/sh nobody -c 'keyctl rdescribe @s' >> /tmp/foreign 2>&1; done ) &
		for i in \$(seq $sleepers); do sh -c '$member' & done
		( for i in \$(seq $forks); do sh -c '$member' & done; echo done > /tmp/forker.done ) &
		wait" > /tmp/jid &
	pn_wait_file /tmp/jid
	pn_wait_until "the forker to start" sh -c '[ "$(awk '\''$1 == "job" { print $2 }'\'' /proc/pnotify)" -gt '"$((sleepers + 10))"' ]'
	pn_load keyring_bridge
	pn_wait_file /tmp/forker.done
	touch /tmp/stop
	pn_log "round $round: $(followers job) job members, $(followers keyring_bridge) keyring_bridge subscriptions"
	members=$((sleepers + forks))
	yes | head -n "$members" >&3
	pn_wait_until "round $round: every member to report its session keyring" \
		sh -c '[ "$(wc -l < /tmp/ses)" -ge '"$members"' ]'
	name="_job.$(printf %016x "$(head -n 1 /tmp/jid)")"
	with=$(grep -c ";$name\$" /tmp/ses)
	[ "$with" = "$members" ] ||
		pn_fail "round $round: $with of $members members have their job's keyring: $(grep -v ";$name\$" /tmp/ses | sort | uniq -c | head -n 3)"
	grep -q ';_uid_ses.65534$' /tmp/foreign ||
		pn_fail "round $round: no shell of nobody ran without the job's keyring: $(sort /tmp/foreign | uniq -c | head -n 3)"
	foreign=$(grep -c ";$name\$" /tmp/foreign)
	[ "$foreign" = 0 ] ||
		pn_fail "round $round: $foreign of $(wc -l < /tmp/foreign) shells of nobody in root's job kept its keyring"
	pn_log "round $round: $(wc -l < /tmp/foreign) shells of nobody in root's job, none with its keyring"
	pn_wait_until "the job to end" sh -c '[ "$(awk '\''$1 == "job" { print $2 }'\'' /proc/pnotify)" = 0 ]'
	pn_unload keyring_bridge
done
exec 3>&-
! dmesg | grep 'keyring_bridge: tasks kept forking during init' ||
	pn_fail "keyring_bridge's registration walk did not end"
! pn_test_build test_delay_init_us ||
	echo 0 > /sys/module/pnotify/parameters/test_delay_init_us

# pn_register_mutex held by an unregister whose exit callbacks sleep.
pn_load pnotify_testsub sleep_ms=4000
sh -c 'echo subscribe > /proc/pnotify_testsub; exec sleep 600' &
subscribed=$!
pn_wait_until "testsub to follow the sleeper" sh -c '[ "$(awk '\''$1 == "testsub" { print $2 }'\'' /proc/pnotify)" -ge 1 ]'
rmmod pnotify_testsub &
unloading=$!
usleep 500000
insmod "$PN_MODDIR/keyring_bridge.ko" &
loading=$!
pn_wait_until "keyring_bridge's job notifier" grep -q '^keyring_bridge ' /proc/modules
usleep 300000
out=$(jobctl create -- sh -c '( exit 0 ) & wait $!; echo "child: $?"' 2>&1)
pn_log "a job joined during the registration: $out"
wait "$unloading" "$loading"
case $out in
*"child: 0"*) ;;
*) pn_fail "a fork in a job joined during keyring_bridge's registration failed: $out" ;;
esac
fails=$(awk '$1 == "fork_failures:" { print $2 }' /proc/pnotify)
[ "$fails" = 0 ] || pn_fail "$fails forks failed"
kill "$subscribed"
pn_unload keyring_bridge
pn_unload job
pn_unload pnotify
