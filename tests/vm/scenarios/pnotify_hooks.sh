# The hooks are ftrace-based kprobes on the stock kernel, armed only while a
# task is followed: a process that no subscriber follows leaves no trace in
# pnotify's table, and with nothing followed the hooks are not even called.
. /lib/pn/lib.sh

hooks_disarmed() {
	! grep -q '^hook: .* armed$' /proc/pnotify
}

pn_load pnotify
cat /proc/pnotify
for hook in attach_pid setup_new_exec exit_files; do
	grep -q "^hook: $hook ftrace disarmed$" /proc/pnotify ||
		pn_fail "hook $hook missing, not ftrace-based, or armed with nothing followed"
done
grep -q 'attach_pid.*\[DISABLED\]' /sys/kernel/debug/kprobes/list 2>/dev/null ||
	[ ! -e /sys/kernel/debug/kprobes/list ] ||
	pn_fail "the kprobe on attach_pid is enabled with nothing followed"
pnotify_test storm 2 2
grep -q '^tasks: 0$' /proc/pnotify || pn_fail "unfollowed tasks got entries"
grep -q '^forks_followed: 0$' /proc/pnotify || pn_fail "unfollowed forks followed"

# A subscriber's registration offers it every running task without arming
# the hooks (it would keep them armed for idle_ms, a second by default).
pn_load job
pn_load keyring_bridge
hooks_disarmed || pn_fail "registering job and keyring_bridge armed the hooks"

# A job arms the hooks before its first process is followed, and its end
# disarms them (idle_ms=0: at once).  Each round's first fork must find
# them armed: the child is a member.
echo 0 > /sys/module/pnotify/parameters/idle_ms
rounds=$(pn_scale 60)
i=0
while [ "$i" -lt "$rounds" ]; do
	out=$(jobctl create -- sh -c 'sleep 30 & p=$!
		armed=$(grep -c "^hook: .* armed$" /proc/pnotify)
		jstat -p | awk -v p="$p" "\$3 == p { found = 1 } END { exit !found }" &&
			echo "member $armed"
		kill "$p"') || pn_fail "round $i: jobctl create failed"
	case $out in
	*"member 3") ;;
	*) pn_fail "round $i: the job's first child is not a member, or hooks not armed: $out" ;;
	esac
	pn_wait_until "round $i: the hooks disarmed" hooks_disarmed
	i=$((i + 1))
done
echo "$rounds rounds: armed by each job, disarmed after it"
pn_unload keyring_bridge
pn_unload job
pn_unload pnotify
