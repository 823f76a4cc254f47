# The hooks are ftrace callbacks (fork, exec) and a tracepoint probe
# (exit), armed when the first subscription is prepared and not before: a
# process that no subscriber follows leaves no trace in pnotify's table,
# and until a task is followed the hooks are not even called (ftrace's own
# list of the functions it calls back says so too).  Once armed they stay
# armed until pnotify unloads.
. /lib/pn/lib.sh

enabled=/sys/kernel/tracing/enabled_functions
[ -r "$enabled" ] || mount -t tracefs tracefs /sys/kernel/tracing ||
	pn_fail "cannot mount tracefs"

hooks_armed() {
	[ "$(grep -c '^hook: .* armed$' /proc/pnotify)" = 3 ]
}

hooks_disarmed() {
	! grep -q '^hook: .* armed$' /proc/pnotify
}

# How many of the hooked functions ftrace calls back for anyone, and for
# pnotify (named only while it is the function's one user).
ftrace_users() {
	grep -cE '^(attach_pid|setup_new_exec) ' "$enabled"
}
ftrace_hooked() {
	grep -E '^(attach_pid|setup_new_exec) ' "$enabled" |
		grep -c 'pn_hook_call'
}

before=$(ftrace_users)
pn_load pnotify
cat /proc/pnotify
for hook in 'attach_pid ftrace' 'setup_new_exec ftrace' \
	'sched_process_exit tracepoint'; do
	grep -q "^hook: $hook disarmed$" /proc/pnotify ||
		pn_fail "hook $hook missing, or armed with nothing followed"
done
pnotify_test storm 2 2
grep -q '^tasks: 0$' /proc/pnotify || pn_fail "unfollowed tasks got entries"
grep -q '^forks_followed: 0$' /proc/pnotify || pn_fail "unfollowed forks followed"

# A subscriber's registration offers it every running task without arming
# the hooks.
pn_load job
pn_load keyring_bridge
hooks_disarmed || pn_fail "registering job and keyring_bridge armed the hooks"
[ "$(ftrace_users)" = "$before" ] ||
	pn_fail "ftrace calls back $(ftrace_users) hooked functions, $before before pnotify, with nothing followed"

# With ftrace off (sysctl), the hooks cannot be armed: the first job fails
# (EOPNOTSUPP), jobctl and the kernel log say why.
echo 0 > /proc/sys/kernel/ftrace_enabled
if jobctl create -- true 2> /tmp/create.err; then
	pn_fail "a job was created with kernel.ftrace_enabled 0"
fi
grep -q 'pnotify cannot hook fork, exec and exit' /tmp/create.err ||
	pn_fail "with kernel.ftrace_enabled 0, not EOPNOTSUPP: $(cat /tmp/create.err)"
dmesg | grep -q 'sysctl kernel.ftrace_enabled is 0' ||
	pn_fail "pnotify did not say why the hooks could not be armed"
hooks_disarmed || pn_fail "hooks armed with kernel.ftrace_enabled 0"
echo 1 > /proc/sys/kernel/ftrace_enabled

# The first job arms the hooks before its first process is followed, and
# they stay armed after it.  Each round's first fork must find them armed:
# the child is a member.
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
	i=$((i + 1))
done
echo "$rounds rounds: the first child of each job a member"
# The exit hook (the tracepoint's probe) saw the members' exits.
[ "$(sed -n 's/^exits_in_hook: //p' /proc/pnotify)" -gt 0 ] ||
	pn_fail "no member's exit was ended in the exit hook"
hooks_armed || pn_fail "the hooks disarmed after the jobs"
[ "$(ftrace_hooked)" = 2 ] ||
	pn_fail "armed, ftrace calls pnotify back for $(ftrace_hooked) hooked functions, not 2"
# Armed, pnotify's hooks keep ftrace on.
if echo 0 > /proc/sys/kernel/ftrace_enabled; then
	echo 1 > /proc/sys/kernel/ftrace_enabled
	pn_fail "kernel.ftrace_enabled could be set to 0 under armed hooks"
fi
pn_unload keyring_bridge
pn_unload job
pn_unload pnotify
[ "$(ftrace_users)" = "$before" ] ||
	pn_fail "ftrace calls back $(ftrace_users) hooked functions after pnotify's unload, $before before"
