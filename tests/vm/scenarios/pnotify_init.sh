# A subscriber's init callback covers the tasks running at registration, and
# each of them gets its exit callback when it ends.
. /lib/pn/lib.sh

counter() { awk -v k="$1:" '$1 == k { print $2 }' /proc/pnotify_testsub; }

pn_load pnotify
sleep 600 & s1=$!
sleep 600 & s2=$!
sleep 600 & s3=$!
pn_load pnotify_testsub init_all=1
inits=$(counter init)
[ "$inits" -ge 4 ] || pn_fail "init covered $inits tasks, want at least 4"
exits=$(counter exit)
kill "$s1" "$s2" "$s3"
wait "$s1" "$s2" "$s3"
after=$(counter exit)
[ $((after - exits)) -ge 3 ] || pn_fail "exit callbacks of init'd tasks: $((after - exits))"
# The shell itself was covered: its children are followed.
[ "$(counter subscribed)" = 1 ] || pn_fail "a child of an init'd shell is not subscribed"
pn_unload pnotify_testsub
pn_unload pnotify
