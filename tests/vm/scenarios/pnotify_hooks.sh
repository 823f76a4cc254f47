# The hooks are ftrace callbacks (fork, exec; direct calls where ftrace
# has them) and a tracepoint probe (exit), armed when the
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

# Waits up to 10 s (100 on a debug kernel) for the hooks to disarm: from
# 6.9 each direct call's unregister waits for RCU Tasks.
wait_disarmed() {
	_n=0
	_limit=100
	pn_slow && _limit=1000
	while ! pn_hooks_disarmed; do
		[ "$_n" -lt "$_limit" ] || return 1
		sleep 0.1
		_n=$((_n + 1))
	done
}

# How many of the hooked functions ftrace calls back for anyone, and for
# pnotify (named only while it is the function's one user).
ftrace_users() {
	grep -cE '^(attach_pid|setup_new_exec) ' "$enabled"
}
# How many other functions ftrace calls back for anyone.
ftrace_others() {
	grep -cvE '^(attach_pid|setup_new_exec) |^[[:space:]]' "$enabled"
}
# The functions with a direct call (pnotify's trampoline for each).
direct_functions='attach_pid setup_new_exec'
tramp='direct-->pn_(fork|exec)_tramp'
# How FUNCTION is hooked: direct (its own trampoline) or ftrace (the ops).
hook_kind() {
	sed -n "s/^hook: $1 \([a-z]*\) .*/\1/p" /proc/pnotify
}
# What ftrace_users reads disarmed: the functions whose direct calls stay
# registered, idle (before 6.9), too.
idle_users() {
	_n=$before
	if ! grep -q '^hook_direct_disarm: unregistered$' /proc/pnotify; then
		for _f in $direct_functions; do
			[ "$(hook_kind "$_f")" != direct ] || _n=$((_n + 1))
		done
	fi
	echo "$_n"
}
ftrace_hooked() {
	grep -A1 -E '^(attach_pid|setup_new_exec) ' "$enabled" |
		grep -cE "pn_hook_call|$tramp"
}
# FUNCTION's lines in FILE (default: ftrace's list now): its users, and
# where its direct call goes.
hook_users() {
	awk -v f="$1" '$1 == f { on = 1; print; next }
		on && /^\t/ { print; next } { on = 0 }' "${2:-$enabled}"
}
# Whether FUNCTION's ftrace site calls pnotify's trampoline; as it did in
# the last first_child_member's job (armed_).
hook_direct() {
	hook_users "$1" | grep -qE "$tramp"
}
armed_direct() {
	hook_users "$1" /tmp/armed_users | grep -qE "$tramp"
}
# direct_alone FILE WHEN: in ftrace's list FILE, each function called
# directly has one user: pnotify's ops does not call it back too.
direct_alone() {
	[ "$kind" = direct ] || return 0
	for _f in $direct_functions; do
		grep -q "^$_f (1) " "$1" ||
			pn_fail "$2, $_f() has other users than its direct call: $(hook_users "$_f" "$1")"
	done
}

before=$(ftrace_users)
others=$(ftrace_others)
pn_load pnotify
cat /proc/pnotify
kind=$(hook_kind attach_pid)
for f in $direct_functions; do
	case $(hook_kind "$f") in
	"$kind") ;;
	*) pn_fail "$f() hooked as '$(hook_kind "$f")', not as attach_pid() ($kind): direct or ftrace" ;;
	esac
done
case $kind in
direct | ftrace) ;;
*) pn_fail "attach_pid() hooked as '$kind', not direct or ftrace" ;;
esac
for hook in "attach_pid $kind" "setup_new_exec $kind" \
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
		grep -A1 -E "^(attach_pid|setup_new_exec) " '"$enabled"' > /tmp/armed_users
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

# The direct calls: ftrace allows one on a function.  With another on
# each there first (a BPF trampoline; here a test module), both functions
# are hooked through the ops, and a job's children are members, each fork
# and exec seen, all the same.  Gone, it leaves them to the direct calls
# again at the next arming, which an ops that may send attach_pid() calls
# elsewhere (a livepatch of it) shares.  From 6.0 on x86-64; 5.10 keeps
# the ops.
case "$(uname -m) $(uname -r)" in
"x86_64 "[6-9].*) [ "$kind" = direct ] ||
	pn_fail "attach_pid() hooked as $kind, not direct, on $(uname -r)" ;;
esac
# calls_seen LABEL: a job's first child is a member, and a subscriber
# (pnotify_testsub) sees each fork and exec of posix_spawn's children.
calls_seen() {
	first_child_member "$1"
	pnotify_test spawns 5 || pn_fail "$1: a fork or exec unseen"
}
rival_said() {
	dmesg | grep -c "another ftrace user holds $1() for itself"
}
if [ "$kind" = direct ]; then
	pn_load pnotify_testsub
	echo 0 > /sys/module/pnotify/parameters/idle_ms
	said_fork=$(rival_said attach_pid)
	said_exec=$(rival_said setup_new_exec)
	pn_load pnotify_direct_rival
	calls_seen "direct rival"
	for f in $direct_functions; do
		[ "$(hook_kind "$f")" = ftrace ] ||
			pn_fail "$f() hooked as $(hook_kind "$f") with another direct call there"
	done
	[ "$(rival_said attach_pid)" -gt "$said_fork" ] &&
		[ "$(rival_said setup_new_exec)" -gt "$said_exec" ] ||
		pn_fail "pnotify did not say why attach_pid() and setup_new_exec() went through the ops"
	! disarms || wait_disarmed || pn_fail "the hooks stayed armed after the rival's job"
	# Disarmed, the ops that hooked them meanwhile is muted there.
	for f in $direct_functions; do
		! disarms || grep -q "^$f (1) " "$enabled" ||
			pn_fail "disarmed, pnotify's ops still hooks $f() beside the rival: $(hook_users "$f")"
	done
	pn_unload pnotify_direct_rival
	pn_load pnotify_clone_rival function=attach_pid
	calls_seen "direct rival gone"
	for f in $direct_functions; do
		[ "$(hook_kind "$f")" = direct ] && armed_direct "$f" ||
			pn_fail "$f() not called directly once the rival left (attach_pid() beside a livepatch's ops): $(hook_users "$f" /tmp/armed_users)"
	done
	! disarms || wait_disarmed || pn_fail "the hooks stayed armed after a job"
	pn_unload pnotify_clone_rival
	pn_unload pnotify_testsub
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
# pnotify's ops is called back for its functions only: with none in its
# filter (every one hooked by its direct call) it would be for all.
[ "$(ftrace_others)" = "$others" ] ||
	pn_fail "armed, ftrace calls back $(ftrace_others) other functions, $others before pnotify"
direct_alone "$enabled" "armed"
# Armed, the hooks leave kernel_clone() to a livepatch, and their direct
# calls keep other direct calls out.
pn_load pnotify_clone_rival
pn_unload pnotify_clone_rival
if [ "$kind" = direct ]; then
	# Others share each function with its direct call, which ftrace then
	# reaches through its own trampoline: a kprobe, and an ops that may
	# send the calls elsewhere (a livepatch of it).  Children are members,
	# each fork and exec seen, all the same, and the kprobe fires.
	pn_load pnotify_testsub
	tracing=/sys/kernel/tracing
	failures=$(sed -n "s/^fork_failures: //p" /proc/pnotify)
	for f in $direct_functions; do
		hook_direct "$f" ||
			pn_fail "armed, $f() does not call pnotify directly: $(hook_users "$f")"
		if insmod "$PN_MODDIR/pnotify_direct_rival.ko" functions="$f" 2> /dev/null; then
			pn_fail "another direct call took $f() from the armed hook"
		fi
		echo "p:pn_$f $f" >> "$tracing/kprobe_events" ||
			pn_fail "cannot add a kprobe on $f()"
		echo 1 > "$tracing/events/kprobes/pn_$f/enable"
		pn_load pnotify_clone_rival function="$f"
		# Three users: the kprobe, the ops, the direct call; not pn_ops.
		grep -q "^$f (3) " "$enabled" ||
			pn_fail "shared, $f() does not have 3 users: $(hook_users "$f")"
		calls_seen "$f() shared"
		armed_direct "$f" ||
			pn_fail "shared, $f() does not call pnotify directly: $(hook_users "$f" /tmp/armed_users)"
		hits=$(awk -v e="pn_$f" '$1 == e { print $2 }' "$tracing/kprobe_profile")
		[ "${hits:-0}" -gt 0 ] || pn_fail "the kprobe beside $f()'s direct call never fired"
		pn_unload pnotify_clone_rival
		echo 0 > "$tracing/events/kprobes/pn_$f/enable"
		echo "-:pn_$f" >> "$tracing/kprobe_events" ||
			pn_fail "cannot remove the kprobe on $f()"
		calls_seen "$f() no longer shared"
	done
	# A fork hooked twice would doom its child.
	now=$(sed -n "s/^fork_failures: //p" /proc/pnotify)
	[ "$now" = "$failures" ] ||
		pn_fail "forks failed with attach_pid() shared: $failures before, $now after"
	pn_unload pnotify_testsub
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

# A load's first arming, with no rival before it (above, the first had
# one): the direct calls alone on their functions again.
pn_load pnotify
pn_load job
first_child_member "first job after a reload"
direct_alone /tmp/armed_users "first arming after a reload"
pn_unload job
pn_unload pnotify
