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

# With ftrace off the hooks cannot be armed: the first task init() takes
# gets its exit callback at once, the others are not offered (one message,
# not one per task), nothing is subscribed, nothing is unbalanced.
arm_msgs() { dmesg | grep -c 'cannot arm the hooks: sysctl kernel.ftrace_enabled is 0'; }
msgs=$(arm_msgs)
echo 0 > /proc/sys/kernel/ftrace_enabled
pn_load pnotify
sleep 600 & s1=$!
sleep 600 & s2=$!
pn_load pnotify_testsub init_all=1
echo 1 > /proc/sys/kernel/ftrace_enabled
pn_assert_eq "inits with the hooks unarmable" 1 "$(counter init)"
pn_assert_eq "exits of an init'd task not subscribed" 1 "$(counter unsubscribe)"
pn_assert_eq "subscribed without hooks" 0 "$(counter subscribed)"
pn_assert_eq "unbalanced callbacks" 0 "$(counter unbalanced)"
pn_assert_eq "messages about the arming" 1 "$(($(arm_msgs) - msgs))"
grep -q '^hook: .* armed$' /proc/pnotify && pn_fail "hooks armed with ftrace off"
kill "$s1" "$s2"
wait "$s1" "$s2"
pn_unload pnotify_testsub
pn_unload pnotify
