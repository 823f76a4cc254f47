# The hooks are ftrace-based kprobes on the stock kernel, and a process that
# no subscriber follows leaves no trace in pnotify's table.
. /lib/pn/lib.sh

pn_load pnotify
cat /proc/pnotify
for hook in attach_pid setup_new_exec exit_files; do
	grep -q "^hook: $hook ftrace" /proc/pnotify ||
		pn_fail "hook $hook missing or not ftrace-based"
done
pnotify_test storm 2 2
grep -q '^tasks: 0$' /proc/pnotify || pn_fail "unfollowed tasks got entries"
grep -q '^forks_followed: 0$' /proc/pnotify || pn_fail "unfollowed forks followed"
pn_unload pnotify
