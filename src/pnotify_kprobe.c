// SPDX-License-Identifier: GPL-2.0
/*
 * pnotify hook layer: where fork, exec and exit are seen on an unpatched
 * kernel.  Each hook is a small handler, installed from one table: on a
 * tracepoint where one sits in the right place, else on a function that
 * has kept its meaning for many releases, with ftrace.  A tracepoint calls
 * its probe directly.  The hooked functions are one ftrace_ops, whose
 * callback hands each call to its handler.  ftrace, not kprobes: its
 * trampoline saves only the argument registers and calls the callback
 * directly, where a kprobe on the same site saves every register and looks
 * itself up, and attach_pid() is called four times a fork.  A kprobe serves
 * only to find each function's ftrace site in vmlinux (a module's function
 * of the same name, a livepatch's copy, is not hooked).
 *
 * Both functions get a direct call where ftrace has them (x86-64, from
 * 6.0: see wrapper/ftrace.h): the site calls pnotify_tramp.S, which calls
 * the hook with no ftrace trampoline and no callback, and for attach_pid()
 * returns at once from the three calls a fork makes for other pid types.
 * ftrace allows one direct call on a function: while another holds it (a
 * BPF trampoline), the function joins the ops.
 *
 * The handlers run the core with preemption disabled, on PREEMPT_RT too,
 * whatever the hooked function's caller holds: the core may take only raw
 * spinlocks and bit locks there, never allocates, and queues task works
 * for whatever must sleep.  The callback is notrace, and needs no
 * recursion check: nothing it calls reaches a hooked function.  No hook
 * sends a call elsewhere: pnotify takes no function from a livepatch.
 *
 * The hooks are armed while the core holds them (a subscription is
 * prepared, a task is followed), and disarmed idle_ms after the last hold
 * went: with nothing followed, a fork, exec or exit costs what it costs
 * without the module.  Disarmed, the ftrace_ops stays registered with the
 * hooked functions on its notrace list, their sites back to a no-op (see
 * pn_functions_mute()), and the tracepoint's probe is unregistered.  The
 * direct calls are unregistered from 6.9; before, they stay registered,
 * and find nothing followed (see pn_hooks_unregister()).  Where ftrace
 * cannot mute them so (PN_FTRACE_CAN_MUTE: before 5.11), the hooks stay
 * armed from the first arming to the unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include "pnotify_internal.h"
#include "wrapper/ftrace.h"

static char *sync = "srcu";
module_param(sync, charp, 0444);
MODULE_PARM_DESC(sync, "reader/writer guard: rwsem, percpu or srcu (default)");

/*
 * attach_pid(p, PIDTYPE_PID) in copy_process(): every new task, fork, vfork,
 * clone and clone3 alike, in the forking task, past the fork's last failure
 * point and before the child can be found by pid, so that it is followed
 * from the instant it exists.  Called with interrupts off under
 * tasklist_lock and the parent's siglock (both sleeping locks on
 * PREEMPT_RT): nothing here may sleep, allocate, or signal the usual way.
 * (change_pid() attaches the other pid types.)
 */
static void notrace pn_hook_fork(struct task_struct *child)
{
	pn_core_fork(current, child);
}

/*
 * From pn_fork_tramp, for attach_pid(@child, PIDTYPE_PID).  Preemptible
 * only on PREEMPT_RT: elsewhere its interrupts are off.  The direct call
 * may stay while the hooks are disarmed (see pn_hooks_unregister()): the
 * core then finds nothing followed.
 */
void notrace pn_fork_direct_call(struct task_struct *child)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		preempt_disable_notrace();
	pn_hook_fork(child);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		preempt_enable_notrace();
}
static_assert(PIDTYPE_PID == 0, "pnotify_tramp.S tests the type for 0");

/*
 * setup_new_exec(bprm): called by every binary format once exec is past
 * its point of no return, in the exec'ing task.  Only queues a task work.
 */
static void notrace pn_hook_exec(void)
{
	pn_core_exec(current);
}

/* From pn_exec_tramp, as pn_fork_direct_call() from pn_fork_tramp. */
void notrace pn_exec_direct_call(void)
{
	preempt_disable_notrace();
	pn_hook_exec();
	preempt_enable_notrace();
}

/*
 * sched_process_exit(tsk) in do_exit(), in the exiting task: after
 * PF_EXITING is set, which orders the hook against subscriptions made from
 * other tasks, after exit_mm() and before exit_files() and
 * exit_task_work().  Called with preemption disabled.  Ends a followed
 * process there, with interrupts off (leave()), or queues its exit work.
 */
static void notrace pn_probe_exit(void *data, struct task_struct *task)
{
	pn_core_exit(task);
}

/* Under pn_arm_lock; read by /proc/pnotify. */
static bool pn_hooks_armed;

enum { PN_HOOK_FORK, PN_HOOK_EXEC, PN_HOOK_EXIT, PN_NR_HOOKS };

static void notrace pn_hook_call(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *ops,
				 struct pn_ftrace_regs *regs);

static struct ftrace_ops pn_ops = {
	.func = pn_hook_call,
	.flags = PN_FTRACE_OPS_FLAGS,
};

/* The direct calls': ftrace gives an ops one trampoline. */
static struct ftrace_ops pn_fork_direct_ops = PN_FTRACE_DIRECT_OPS;
static struct ftrace_ops pn_exec_direct_ops = PN_FTRACE_DIRECT_OPS;

static struct pn_hook {
	const char *name;	/* of the tracepoint, or of the function */
	void *probe;		/* a tracepoint's; NULL: a function's hook */
	struct ftrace_ops *ops;	/* a function's */
	void (*direct)(void);	/* a function's direct call, if it has one */
	struct ftrace_ops *direct_ops;
	struct tracepoint *tp;	/* found at load */
	unsigned long site;	/* a function's ftrace site, found at load */
	/*
	 * Under pn_arm_lock: whether the direct call hooks it, whether ops
	 * does instead (the direct call refused), and whether it is on ops'
	 * notrace list.
	 */
	bool direct_on;
	bool in_ops;
	bool muted;
} pn_hooks[PN_NR_HOOKS] __read_mostly = {
	[PN_HOOK_FORK] = { "attach_pid", .ops = &pn_ops,
			   .direct = PN_FTRACE_DIRECT ? pn_fork_tramp : NULL,
			   .direct_ops = &pn_fork_direct_ops },
	[PN_HOOK_EXEC] = { "setup_new_exec", .ops = &pn_ops,
			   .direct = PN_FTRACE_DIRECT ? pn_exec_tramp : NULL,
			   .direct_ops = &pn_exec_direct_ops },
	[PN_HOOK_EXIT] = { "sched_process_exit", pn_probe_exit },
};

/*
 * The one ftrace callback, called at the ftrace site @ip of a hooked
 * function: its handler, called directly (no indirect call on the fork
 * path).  Preemptible on entry: the ops asks for no recursion check.
 */
static void notrace pn_hook_call(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *ops,
				 struct pn_ftrace_regs *regs)
{
	bool fork = ip == pn_hooks[PN_HOOK_FORK].site;

	/* Three of a new process's four attach_pid() calls: at once. */
	if (fork && pn_ftrace_arg(regs, 1) != PIDTYPE_PID)
		return;
	preempt_disable_notrace();
	if (fork)
		pn_hook_fork((struct task_struct *)pn_ftrace_arg(regs, 0));
	else if (ip == pn_hooks[PN_HOOK_EXEC].site)
		pn_hook_exec();
	preempt_enable_notrace();
}

/* Unregisters the probes of the tracepoint hooks before @end. */
static void pn_probes_unregister(unsigned int end)
{
	unsigned int i;

	for (i = 0; i < end; i++)
		if (pn_hooks[i].probe)
			WARN_ON(tracepoint_probe_unregister(pn_hooks[i].tp,
							    pn_hooks[i].probe,
							    NULL));
}

/* Registers the probes of the tracepoint hooks: all of them, or none. */
static int pn_probes_register(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < PN_NR_HOOKS; i++) {
		if (!pn_hooks[i].probe)
			continue;
		err = tracepoint_probe_register(pn_hooks[i].tp,
						pn_hooks[i].probe, NULL);
		if (err) {
			pn_probes_unregister(i);
			return err;
		}
	}
	return 0;
}

static unsigned int idle_ms = 10000;
module_param(idle_ms, uint, 0644);
MODULE_PARM_DESC(idle_ms, "how long the hooks stay armed once nothing is followed (ms)");

/*
 * The holds on the hooks: one per task followed (its entry) and one per
 * subscription prepared.  They go from 0 to 1 only under pn_arm_lock,
 * with the hooks armed, and the hooks are disarmed only under it with no
 * hold: whoever holds them knows they are armed.
 *
 * Arming and disarming patch kernel text under ftrace's and the text
 * locks, which others hold across a wait for RCU Tasks; before 6.9 that
 * waits for an exiting pid namespace's init, which waits for its children
 * to exit.  So both run in kworkers, under pn_arm_lock, and a task that
 * wants the hooks armed waits for them only killably: killed with its
 * namespace, it lets the init go on.
 */
atomic_long_t pn_hook_holds = ATOMIC_LONG_INIT(0);
static DEFINE_MUTEX(pn_arm_lock);
static bool pn_ops_registered;	/* from the first arming to the unload */
static int pn_arm_err;		/* of the last arming */
static unsigned long pn_armings;	/* tried; woken on pn_arm_wq */
static DECLARE_WAIT_QUEUE_HEAD(pn_arm_wq);
/* Callers of pn_hooks_get() on the slow path: the idle work waits for them. */
static atomic_t pn_arm_waiters = ATOMIC_INIT(0);

/* Whether pn_ops calls @hook's function back when armed.  pn_arm_lock held. */
static bool pn_hook_in_ops(const struct pn_hook *hook)
{
	return hook->ops == &pn_ops && (!hook->direct || hook->in_ops);
}

/*
 * pn_ops' filter holds every function it hooks from the load on: a
 * registered ops whose filter is empty is called for every function.
 * Those it does not call back, all of them disarmed and those their
 * direct calls hook, are on its notrace list: their sites are a no-op, or
 * the direct call.  Unregistering the ops instead would wait for RCU Tasks
 * itself.  Each change of the list walks every ftrace record: only what
 * changes is changed.  The list takes names, and so a module's function
 * of the same name too (a livepatch's copy): before 6.11, ftrace's walk
 * for a notrace list stops early only once it has met all of the list's
 * that are in the filter (on 6.1 an arming walked 1.9 M instructions more
 * when one was not).
 */
static int pn_function_mute(struct pn_hook *hook, bool mute)
{
	char name[KSYM_NAME_LEN + 1];
	int err;

	if (hook->muted == mute)
		return 0;
	/* ftrace parses the name in place; "!" takes it off the list. */
	snprintf(name, sizeof(name), "%s%s", mute ? "" : "!", hook->name);
	err = ftrace_set_notrace(&pn_ops, name, strlen(name), 0);
	if (!err)
		hook->muted = mute;
	return err;
}

/*
 * Mutes all of pn_ops' functions, going on past an error, which it
 * returns; or unmutes those it calls back armed but for the functions with
 * a direct call, which pn_direct_arm() unmutes if the call is refused: no
 * function is ever called back by pn_ops and its direct call.
 */
static int pn_functions_mute(bool mute)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < PN_NR_HOOKS; i++) {
		if (mute && pn_hooks[i].ops == &pn_ops)
			err = pn_function_mute(&pn_hooks[i], true) ?: err;
		else if (!mute && !pn_hooks[i].direct &&
			 pn_hook_in_ops(&pn_hooks[i]))
			err = err ?: pn_function_mute(&pn_hooks[i], false);
	}
	return err;
}

/* Registers pn_ops the first time, else unmutes its functions. */
static int pn_ops_arm(void)
{
	int err;

	if (pn_ops_registered)
		return pn_functions_mute(false);
	err = register_ftrace_function(&pn_ops);
	if (err == -EBUSY) {
		/* Not busy: ftrace is off until someone turns it on. */
		pr_err_ratelimited("cannot arm the hooks: sysctl kernel.ftrace_enabled is 0\n");
		return -EOPNOTSUPP;
	}
	pn_ops_registered = !err;
	return err;
}

/*
 * Hooks @hook's function with its direct call, or else through its ops.
 * After pn_ops_arm(), which says if ftrace is off (busy then means taken),
 * where an arming refused leaves no direct call that would stay
 * registered.  Nothing is followed until the arming ends, so a
 * function moved between the direct call and the ops meanwhile misses no
 * call that matters.  A function that joined the ops tries its direct
 * call again at the next arming, where the ops' functions may change
 * while it is registered.  pn_arm_lock held.
 */
static int pn_direct_arm(struct pn_hook *hook)
{
	int err;

	if (hook->direct_on)
		return 0;
	if (hook->in_ops) {
		if (!PN_FTRACE_CAN_MUTE || pn_function_mute(hook, true))
			return 0;
		WRITE_ONCE(hook->in_ops, false);
	}
	err = pn_ftrace_direct_register(hook->direct_ops,
					(unsigned long)hook->direct);
	if (!err) {
		hook->direct_on = true;
		return 0;
	}
	if (err == -EBUSY)
		pr_info_ratelimited("another ftrace user holds %s() for itself (a BPF trampoline?): hooked through an ftrace_ops, a little slower\n",
				    hook->name);
	else if (err != -EOPNOTSUPP)
		pr_info_ratelimited("cannot call %s() directly (error %d): hooked through an ftrace_ops\n",
				    hook->name, err);
	err = pn_function_mute(hook, false);
	WRITE_ONCE(hook->in_ops, !err);
	return err;
}

/* Waits for RCU Tasks.  pn_arm_lock held. */
static int pn_direct_unregister(struct pn_hook *hook)
{
	int err = pn_ftrace_direct_unregister(hook->direct_ops,
					      (unsigned long)hook->direct);

	hook->direct_on = !!err;
	return err;
}

/*
 * Unregisters the direct calls where that is safe
 * (it waits for RCU Tasks); elsewhere, or if it fails, they stay until the
 * unload.  pn_arm_lock held.
 */
static void pn_hooks_unregister(void)
{
	unsigned int i;
	int err;

	if (!PN_FTRACE_CAN_UNREGISTER)
		return;
	for (i = 0; i < PN_NR_HOOKS; i++) {
		if (!pn_hooks[i].direct_on)
			continue;
		err = pn_direct_unregister(&pn_hooks[i]);
		if (err)
			pr_warn_ratelimited("cannot unhook %s() (error %d)\n",
					    pn_hooks[i].name, err);
	}
}

/* pn_arm_lock held. */
static int pn_hooks_arm(void)
{
	unsigned int i;
	int err = pn_probes_register();

	if (err)
		return err;
	err = pn_ops_arm();
	for (i = 0; i < PN_NR_HOOKS && !err; i++)
		if (pn_hooks[i].direct)
			err = pn_direct_arm(&pn_hooks[i]);
	if (!err) {
		WRITE_ONCE(pn_hooks_armed, true);
		return 0;
	}
	/* Where they cannot be muted, they find nothing to follow. */
	if (PN_FTRACE_CAN_MUTE && pn_ops_registered && pn_functions_mute(true))
		pr_warn_ratelimited("cannot mute the hooked functions again: they run, and find nothing to follow\n");
	pn_hooks_unregister();
	/* Until the unload, a probe removed may still run. */
	pn_probes_unregister(PN_NR_HOOKS);
	return err;
}

static void pn_arm_work_fn(struct work_struct *work)
{
	mutex_lock(&pn_arm_lock);
	if (!pn_hooks_armed) {
		pn_arm_err = pn_hooks_arm();
		if (pn_arm_err && pn_arm_err != -EOPNOTSUPP)
			pr_err_ratelimited("cannot arm the hooks (error %d)\n",
					   pn_arm_err);
	}
	pn_armings++;
	mutex_unlock(&pn_arm_lock);
	wake_up_all(&pn_arm_wq);
}

static DECLARE_WORK(pn_arm_work, pn_arm_work_fn);

static void pn_hooks_idle_later(void);

/*
 * Arms the hooks if they are not yet, and holds them.  Process context;
 * -EINTR for a fatal signal while it waits.
 */
int pn_hooks_get(void)
{
	unsigned long armings;
	bool waited = false;
	int err;

	might_sleep();
	if (atomic_long_inc_not_zero(&pn_hook_holds))
		return 0;
	atomic_inc(&pn_arm_waiters);
	for (;;) {
		err = mutex_lock_killable(&pn_arm_lock);
		if (err)
			break;
		if (pn_hooks_armed) {
			atomic_long_inc(&pn_hook_holds);
			mutex_unlock(&pn_arm_lock);
			break;
		}
		err = waited ? pn_arm_err : 0;
		armings = pn_armings;
		mutex_unlock(&pn_arm_lock);
		if (err)
			break;
		queue_work(system_unbound_wq, &pn_arm_work);
		/* It says -ERESTARTSYS; callers are told -EINTR, as above. */
		if (wait_event_killable(pn_arm_wq,
					READ_ONCE(pn_armings) != armings)) {
			err = -EINTR;
			break;
		}
		waited = true;
	}
	/* The last waiter, leaving without a hold, lets them disarm. */
	if (atomic_dec_and_test(&pn_arm_waiters) &&
	    !atomic_long_read(&pn_hook_holds))
		pn_hooks_idle_later();
	return err;
}

/*
 * Disarms the hooks if nothing holds them, idle_ms after the last hold
 * went.  A hook running meanwhile finds nothing to follow.  The probe
 * goes at once; removed, it may still run until the unload's wait.
 */
static void pn_hooks_idle(struct work_struct *work)
{
	int err;

	mutex_lock(&pn_arm_lock);
	if (pn_hooks_armed && !atomic_long_read(&pn_hook_holds) &&
	    !atomic_read(&pn_arm_waiters)) {
		/*
		 * Disarmed even if some function could not be muted: with
		 * nothing followed its hook finds nothing, and the next
		 * arming unmutes those it calls back, or fails.
		 */
		err = pn_functions_mute(true);
		if (err)
			pr_warn_ratelimited("cannot mute the hooked functions (error %d)\n",
					    err);
		pn_hooks_unregister();
		pn_probes_unregister(PN_NR_HOOKS);
		WRITE_ONCE(pn_hooks_armed, false);
	}
	mutex_unlock(&pn_arm_lock);
}

static DECLARE_DELAYED_WORK(pn_idle_work, pn_hooks_idle);

/* Any context: the timer and workqueue locks are raw on PREEMPT_RT. */
static void pn_hooks_idle_later(void)
{
	if (PN_FTRACE_CAN_MUTE)
		mod_delayed_work(system_wq, &pn_idle_work,
				 msecs_to_jiffies(READ_ONCE(idle_ms)));
}

/* pn_hooks_hold() found no hold: its caller held none. */
void __cold pn_hooks_held_none(void)
{
	WARN_ON_ONCE(1);
}

/* pn_hooks_put() dropped the last hold, or one too many. */
void __cold pn_hooks_last_put(long holds)
{
	WARN_ON_ONCE(holds < 0);
	if (!holds)
		pn_hooks_idle_later();
}

/*
 * Empties the filters and the notrace list, which frees them (5.10 does
 * not export ftrace_free_filter()); each fails only without memory, or
 * with ftrace shut down, and then leaks its list.
 */
static void pn_hooks_unfilter(void)
{
	int err = ftrace_set_filter(&pn_ops, NULL, 0, 1);
	unsigned int i;

	if (err)
		pr_warn("cannot free the hooks' filter (error %d)\n", err);
	err = ftrace_set_notrace(&pn_ops, NULL, 0, 1);
	if (err)
		pr_warn("cannot free the hooks' notrace list (error %d)\n", err);
	for (i = 0; i < PN_NR_HOOKS; i++)
		if (pn_hooks[i].direct)
			pn_ftrace_direct_unfilter(pn_hooks[i].direct_ops);
}

static void pn_tracepoint_match(struct tracepoint *tp, void *hook)
{
	struct pn_hook *h = hook;

	if (!strcmp(tp->name, h->name))
		h->tp = tp;
}

/* Finds @hook's tracepoint or function; 0 or < 0. */
static int pn_hook_find(struct pn_hook *hook)
{
	int err;

	if (hook->probe) {
		for_each_kernel_tracepoint(pn_tracepoint_match, hook);
		return hook->tp ? 0 : -ENOENT;
	}
	hook->site = pn_ftrace_site(hook->name);
	if (!hook->site)
		return -ENOENT;
	err = ftrace_set_filter_ip(hook->ops, hook->site, 0, 0);
	/* Muted in the ops: it joins it only if its direct call is refused. */
	if (!err && hook->direct)
		err = pn_function_mute(hook, true) ?:
		      pn_ftrace_direct_filter(hook->direct_ops, hook->site);
	return err;
}

/* Installed disarmed: pn_hooks_get() arms them. */
static int pn_hooks_install(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < PN_NR_HOOKS; i++) {
		struct pn_hook *hook = &pn_hooks[i];

		err = pn_hook_find(hook);
		if (err) {
			pr_err("cannot hook %s (error %d)%s\n", hook->name,
			       err, err == -ENOMEM ? "" : hook->probe ?
			       ": this kernel has no such tracepoint" :
			       ": this kernel has no such function, or ftrace cannot hook it");
			pn_hooks_unfilter();
			return err;
		}
	}
	return 0;
}

/*
 * Unload: the hooks off, and no CPU in a handler once this returns.
 * Unregistering the ftrace_ops waits for RCU Tasks, the probes for RCU.  If
 * ftrace cannot unhook us (it shut itself down after a bug), our text must
 * stay: the unload waits for ever.
 */
static void pn_hooks_remove(void)
{
	int err = 0, direct_err = 0;
	unsigned int i;

	mutex_lock(&pn_arm_lock);
	if (pn_hooks_armed)
		pn_probes_unregister(PN_NR_HOOKS);
	WRITE_ONCE(pn_hooks_armed, false);
	if (pn_ops_registered)
		err = unregister_ftrace_function(&pn_ops);
	pn_ops_registered = false;
	for (i = 0; i < PN_NR_HOOKS; i++)
		if (pn_hooks[i].direct_on)
			direct_err = pn_direct_unregister(&pn_hooks[i]) ?:
				     direct_err;
	mutex_unlock(&pn_arm_lock);
	err = err ?: direct_err;
	if (WARN_ON(err)) {
		pr_emerg("ftrace cannot unhook fork, exec and exit (error %d): this unload waits for ever, since freeing pnotify would leave them calling freed code; reboot\n",
			 err);
		/* Idle: neither a hung task nor load. */
		for (;;)
			schedule_timeout_idle(600 * HZ);
	}
	/* The probes removed at an arming that failed, too. */
	tracepoint_synchronize_unregister();
	pn_hooks_unfilter();
}

static int pn_proc_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < PN_NR_HOOKS; i++)
		seq_printf(m, "hook: %s %s %s\n", pn_hooks[i].name,
			   pn_hooks[i].probe ? "tracepoint" :
			   pn_hooks[i].direct && !READ_ONCE(pn_hooks[i].in_ops) ?
			   "direct" : "ftrace",
			   READ_ONCE(pn_hooks_armed) ? "armed" : "disarmed");
	seq_printf(m, "hook_disarm: %s\n",
		   PN_FTRACE_CAN_MUTE ? "when idle" : "never (this kernel's ftrace)");
	seq_printf(m, "hook_direct_disarm: %s\n",
		   PN_FTRACE_CAN_UNREGISTER ? "unregistered" :
		   "registered, its call idle (unregistering waits for RCU Tasks before 6.9)");
	seq_printf(m, "hook_holds: %ld\n", atomic_long_read(&pn_hook_holds));
	seq_printf(m, "hook_armings: %lu\n", READ_ONCE(pn_armings));
	pn_core_show(m);
	return 0;
}

static int __init pn_init(void)
{
	int err;

	err = pn_sync_init(sync);
	if (err) {
		pr_err("sync=%s: use rwsem, percpu or srcu\n", sync);
		return err;
	}
	err = pn_core_init();
	if (err)
		goto out_sync;
	err = pn_hooks_install();
	if (err)
		goto out_core;
	if (!proc_create_single("pnotify", 0444, NULL, pn_proc_show)) {
		err = -ENOMEM;
		goto out_hooks;
	}
	return 0;

out_hooks:
	pn_hooks_remove();
out_core:
	pn_core_exit_module();
out_sync:
	pn_sync_exit();
	return err;
}

static void __exit pn_exit(void)
{
	remove_proc_entry("pnotify", NULL);
	/* A caller of pn_hooks_get() killed while it waited may have left it. */
	cancel_work_sync(&pn_arm_work);
	pn_hooks_remove();
	pn_core_exit_module();
	/* The core's last entries, let go of meanwhile, may have queued it. */
	cancel_delayed_work_sync(&pn_idle_work);
	WARN_ON(atomic_long_read(&pn_hook_holds));
	pn_sync_exit();
}

module_init(pn_init);
module_exit(pn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pnotify: process fork, exec and exit notification for modules");
