# The hooks are ftrace callbacks (fork, exec; fork a direct call where
# ftrace has them) and a tracepoint probe (exit), armed when the
# first subscription is prepared and not before: a
# process that no subscriber follows leaves no trace in pnotify's table,
# and until a task is followed the hooks are not even called (ftrace's own
# list of the functions it calls back says so too).  Once nothing is
# followed they disarm (idle_ms later), and arm again for the next job.
. /lib/pn/lib.sh

enabled=/sys/kernel/tracing/enabled_functions
[ -r "$enabled" ] || mount -t tracefs tracefs /sys/kernel/tracing ||
	pn_fail "cannot mount tracefs"

hooks_armed() {
	[ "$(grep -c '^hook: .* armed$' /proc/pnotify)" = 3 ]
}

# Whether this kernel's ftrace lets pnotify disarm its hooks (not 5.10's).
disarms() {
	grep -q '^hook_disarm: when idle$' /proc/pnotify
}

# Waits up to 10 s for the hooks to disarm.
wait_disarmed() {
	_n=0
	while ! pn_hooks_disarmed; do
		[ "$_n" -lt 100 ] || return 1
		sleep 0.1
		_n=$((_n + 1))
	done
}

# How many of the hooked functions ftrace calls back for anyone, and for
# pnotify (named only while it is the function's one user).
ftrace_users() {
	grep -cE '^(attach_pid|setup_new_exec) ' "$enabled"
}
# How attach_pid() is hooked: direct (its own trampoline) or ftrace (the ops).
fork_kind() {
	sed -n 's/^hook: attach_pid \([a-z]*\) .*/\1/p' /proc/pnotify
}
# What ftrace_users reads disarmed: attach_pid() too where its direct call
# stays registered, idle (before 6.9).
idle_users() {
	if ! grep -q '^hook_direct_disarm: unregistered$' /proc/pnotify &&
		[ "$(fork_kind)" = direct ]; then
		echo $((before + 1))
	else
		echo "$before"
	fi
}
ftrace_hooked() {
	grep -A1 -E '^(attach_pid|setup_new_exec) ' "$enabled" |
		grep -cE 'pn_hook_call|direct-->pn_fork_tramp'
}
# attach_pid()'s lines: its users, and where its direct call goes.
fork_users() {
	grep -A1 '^attach_pid ' "$enabled"
}
# Whether attach_pid()'s ftrace site calls pnotify's trampoline; as it
# did in the last first_child_member's job (armed_).
fork_direct() {
	fork_users | grep -q 'direct-->pn_fork_tramp'
}
armed_fork_direct() {
	grep -q 'direct-->pn_fork_tramp' /tmp/armed_fork_users
}

before=$(ftrace_users)
pn_load pnotify
cat /proc/pnotify
kind=$(fork_kind)
case $kind in
direct | ftrace) ;;
*) pn_fail "attach_pid() hooked as '$kind', not direct or ftrace" ;;
esac
for hook in "attach_pid $kind" 'setup_new_exec ftrace' \
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
pn_hooks_disarmed || pn_fail "registering job and keyring_bridge armed the hooks"
[ "$(ftrace_users)" = "$before" ] ||
	pn_fail "ftrace calls back $(ftrace_users) hooked functions, $before before pnotify, with nothing followed"

# first_child_member ROUND: a job's first child is a member, the hooks
# armed, when its fork returns.  Every hook line says armed.
first_child_member() {
	_out=$(jobctl create -- sh -c 'sleep 30 & p=$!
		armed=$(grep -c "^hook: .* armed$" /proc/pnotify)
		grep -A1 "^attach_pid " '"$enabled"' > /tmp/armed_fork_users
		jstat -p | awk -v p="$p" "\$3 == p { found = 1 } END { exit !found }" &&
			echo "member $armed"
		kill "$p"') || pn_fail "round $1: jobctl create failed"
	case $_out in
	*"member 3") ;;
	*) pn_fail "round $1: the job's first child is not a member, or hooks not armed: $_out" ;;
	esac
}

# job_refused WHAT MESSAGE: with WHAT, the hooks cannot be armed: the first
# job fails (EOPNOTSUPP), jobctl says so, the kernel log says MESSAGE.
job_refused() {
	if jobctl create -- true 2> /tmp/create.err; then
		pn_fail "a job was created with $1"
	fi
	grep -q 'pnotify cannot hook fork, exec and exit' /tmp/create.err ||
		pn_fail "with $1, not EOPNOTSUPP: $(cat /tmp/create.err)"
	dmesg | grep -q "$2" || pn_fail "with $1, pnotify did not say why"
	pn_hooks_disarmed || pn_fail "hooks armed with $1"
}

# With ftrace off (sysctl).
echo 0 > /proc/sys/kernel/ftrace_enabled
job_refused "kernel.ftrace_enabled 0" 'sysctl kernel.ftrace_enabled is 0'
echo 1 > /proc/sys/kernel/ftrace_enabled

# attach_pid()'s direct call: ftrace allows one on a function.  With
# another there first (a BPF trampoline; here a test module), attach_pid()
# is hooked through the ops, and a job's children are members all the
# same.  Gone, it leaves attach_pid() to the direct call again at the next
# arming, which an ops that may send attach_pid() calls elsewhere (a
# livepatch of it) shares.  From 6.0 on x86-64; 5.10 keeps the ops.
case "$(uname -m) $(uname -r)" in
"x86_64 "[6-9].*) [ "$kind" = direct ] ||
	pn_fail "attach_pid() hooked as $kind, not direct, on $(uname -r)" ;;
esac
if [ "$kind" = direct ]; then
	echo 0 > /sys/module/pnotify/parameters/idle_ms
	said=$(dmesg | grep -c 'another ftrace user holds attach_pid() for itself')
	pn_load pnotify_fork_rival
	first_child_member "fork rival"
	[ "$(fork_kind)" = ftrace ] ||
		pn_fail "attach_pid() hooked as $(fork_kind) with another direct call there"
	[ "$(dmesg | grep -c 'another ftrace user holds attach_pid() for itself')" -gt "$said" ] ||
		pn_fail "pnotify did not say why attach_pid() went through the ops"
	! disarms || wait_disarmed || pn_fail "the hooks stayed armed after the rival's job"
	# Disarmed, the ops that hooked attach_pid() meanwhile is muted there.
	! disarms || grep -q '^attach_pid (1) ' "$enabled" ||
		pn_fail "disarmed, pnotify's ops still hooks attach_pid() beside the rival: $(fork_users)"
	pn_unload pnotify_fork_rival
	pn_load pnotify_clone_rival function=attach_pid
	first_child_member "fork rival gone"
	[ "$(fork_kind)" = direct ] && armed_fork_direct ||
		pn_fail "attach_pid() not called directly once the rival left, beside a livepatch's ops: $(cat /tmp/armed_fork_users)"
	! disarms || wait_disarmed || pn_fail "the hooks stayed armed after a job"
	pn_unload pnotify_clone_rival
	echo 10000 > /sys/module/pnotify/parameters/idle_ms
fi

# pnotify sends no call elsewhere (IPMODIFY, which ftrace allows one user
# of a function): a livepatch of kernel_clone() (here a test module)
# takes nothing from it, loaded before the hooks arm or while they are.
pn_load pnotify_clone_rival
first_child_member "beside a livepatch of kernel_clone()"
pn_unload pnotify_clone_rival

hook_stat() {
	sed -n "s/^hook_$1: //p" /proc/pnotify
}

# Each job's first fork finds the hooks armed (the child is a member), and
# once the job has ended they disarm: with idle_ms 0, before every round.
echo 0 > /sys/module/pnotify/parameters/idle_ms
rounds=$(pn_scale 60)
i=0
while [ "$i" -lt "$rounds" ]; do
	! disarms || wait_disarmed ||
		pn_fail "round $i: the hooks stayed armed with nothing followed"
	first_child_member "$i"
	i=$((i + 1))
done
echo "$rounds rounds: the hooks disarmed before each job, its first child a member"

# Jobs created while the hooks arm and disarm: a loop of one-process jobs
# flaps them, and each round's first child must still be a member.  Every
# member's exit is seen: no hold is left after.
armings=$(hook_stat armings)
rm -f /tmp/churn.stop
(while [ ! -e /tmp/churn.stop ]; do
	jobctl create -- true || exit 1
	# A gap as long as a disarming, now and then.
	sleep 0.02
done) &
churn=$!
i=0
while [ "$i" -lt "$rounds" ]; do
	first_child_member "churn $i"
	i=$((i + 1))
done
touch /tmp/churn.stop
wait "$churn" || pn_fail "a job of the churn could not be created"
armings=$(($(hook_stat armings) - armings))
echo "$rounds rounds beside the churn: the hooks armed $armings times meanwhile"
[ "$armings" -gt 0 ] || ! disarms || pn_fail "the churn never disarmed the hooks"
n=0
until [ "$(hook_stat holds)" = 0 ]; do
	[ "$n" -lt 100 ] || pn_fail "$(hook_stat holds) holds on the hooks left with no job: an exit went unseen"
	sleep 0.1
	n=$((n + 1))
done
# The exit hook (the tracepoint's probe) saw the members' exits.
[ "$(sed -n 's/^exits_in_hook: //p' /proc/pnotify)" -gt 0 ] ||
	pn_fail "no member's exit was ended in the exit hook"
echo 1000 > /sys/module/pnotify/parameters/idle_ms
if disarms; then
	wait_disarmed || pn_fail "the hooks stayed armed after the jobs"
	[ "$(ftrace_users)" = "$(idle_users)" ] ||
		pn_fail "disarmed, ftrace calls back $(ftrace_users) hooked functions, not $(idle_users) ($before before pnotify)"
else
	sleep 2
	hooks_armed || pn_fail "the hooks disarmed after the jobs on a kernel whose ftrace cannot mute them"
fi

# While a job lives they stay armed, and keep ftrace on.
jobctl create -- sleep 60 &
member=$!
n=0
until hooks_armed && [ "$(ftrace_hooked)" = 2 ]; do
	[ "$n" -lt 100 ] || pn_fail "armed, ftrace calls pnotify back for $(ftrace_hooked) hooked functions, not 2"
	sleep 0.1
	n=$((n + 1))
done
sleep 2
hooks_armed || pn_fail "the hooks disarmed while a job lives"
# Armed, the hooks leave kernel_clone() to a livepatch, and attach_pid()'s
# direct call keeps another direct call out.
pn_load pnotify_clone_rival
pn_unload pnotify_clone_rival
if [ "$(fork_kind)" = direct ]; then
	fork_direct ||
		pn_fail "armed, attach_pid() does not call pnotify directly: $(fork_users)"
	if insmod "$PN_MODDIR/pnotify_fork_rival.ko" 2> /dev/null; then
		pn_fail "another direct call took attach_pid() from the armed fork hook"
	fi
	# Others share attach_pid() with the direct call, which ftrace then
	# reaches through its own trampoline: a kprobe, and an ops that may
	# send the calls elsewhere (a livepatch of it).  Children are members
	# all the same, and the kprobe fires.
	tracing=/sys/kernel/tracing
	failures=$(sed -n "s/^fork_failures: //p" /proc/pnotify)
	echo 'p:pn_attach attach_pid' >> "$tracing/kprobe_events" ||
		pn_fail "cannot add a kprobe on attach_pid()"
	echo 1 > "$tracing/events/kprobes/pn_attach/enable"
	pn_load pnotify_clone_rival function=attach_pid
	first_child_member "attach_pid() shared"
	armed_fork_direct ||
		pn_fail "shared, attach_pid() does not call pnotify directly: $(cat /tmp/armed_fork_users)"
	hits=$(awk '$1 == "pn_attach" { print $2 }' "$tracing/kprobe_profile")
	[ "${hits:-0}" -gt 0 ] || pn_fail "the kprobe beside the direct call never fired"
	pn_unload pnotify_clone_rival
	echo 0 > "$tracing/events/kprobes/pn_attach/enable"
	echo '-:pn_attach' >> "$tracing/kprobe_events" ||
		pn_fail "cannot remove the kprobe on attach_pid()"
	first_child_member "attach_pid() no longer shared"
	# A fork hooked twice would doom its child.
	now=$(sed -n "s/^fork_failures: //p" /proc/pnotify)
	[ "$now" = "$failures" ] ||
		pn_fail "forks failed with attach_pid() shared: $failures before, $now after"
fi
if echo 0 > /proc/sys/kernel/ftrace_enabled; then
	echo 1 > /proc/sys/kernel/ftrace_enabled
	pn_fail "kernel.ftrace_enabled could be set to 0 under armed hooks"
fi
kill "$member"
wait "$member"
! disarms || wait_disarmed || pn_fail "the hooks stayed armed after the last job"
pn_unload keyring_bridge
pn_unload job
pn_unload pnotify
[ "$(ftrace_users)" = "$before" ] ||
	pn_fail "ftrace calls back $(ftrace_users) hooked functions after pnotify's unload, $before before"
