// SPDX-License-Identifier: GPL-2.0
/*
 * pnotify hook layer: where fork, exec and exit are seen on an unpatched
 * kernel.  Each hook is a small handler for a function that has kept its
 * meaning for many releases; all are installed from one table, as one
 * ftrace_ops whose callback hands each call to its handler.  ftrace, not
 * kprobes: its trampoline saves only the argument registers and calls the
 * callback directly, where a kprobe on the same site saves every register
 * and looks itself up, and attach_pid() is called four times a fork.  A
 * kprobe serves only to find each function's ftrace site in vmlinux (a
 * module's function of the same name, a livepatch's copy, is not hooked).
 *
 * The handlers run the core with preemption disabled, on PREEMPT_RT too,
 * whatever the hooked function's caller holds: the core may take only raw
 * spinlocks and bit locks there, never allocates, and queues task works
 * for whatever must sleep.  The callback is notrace, and needs no
 * recursion check: nothing it calls reaches a hooked function.
 *
 * The hooks are armed when the core first needs them (a subscription is
 * prepared), and stay armed until the module unloads: until then, a fork,
 * exec or exit costs what it costs without the module.  They are not
 * disarmed when nothing is followed any more: unregistering an ftrace_ops
 * of a module waits for RCU Tasks, which (before 6.9) waits for a pid
 * namespace's init that reaps its children, one of which could be waiting
 * to arm them again.  (The unload still unregisters, as any module that
 * uses ftrace does.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
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
static void notrace pn_hook_fork(struct pn_ftrace_regs *regs)
{
	if (pn_ftrace_arg(regs, 1) == PIDTYPE_PID)
		pn_core_fork(current,
			     (struct task_struct *)pn_ftrace_arg(regs, 0));
}

/*
 * setup_new_exec(bprm): called by every binary format once exec is past
 * its point of no return, in the exec'ing task.  Only queues a task work.
 */
static void notrace pn_hook_exec(struct pn_ftrace_regs *regs)
{
	pn_core_exec(current);
}

/*
 * exit_files(tsk) in do_exit(): after PF_EXITING is set, which orders the
 * hook against subscriptions made from other tasks, and before
 * exit_task_work().  copy_process() also calls it on a failed child, which
 * was never followed.  Only queues a task work.
 */
static void notrace pn_hook_exit(struct pn_ftrace_regs *regs)
{
	if ((struct task_struct *)pn_ftrace_arg(regs, 0) == current)
		pn_core_exit(current);
}

enum { PN_HOOK_FORK, PN_HOOK_EXEC, PN_HOOK_EXIT, PN_NR_HOOKS };

static struct pn_hook {
	const char *function;
	unsigned long site;	/* its ftrace site, found at load */
} pn_hooks[PN_NR_HOOKS] __read_mostly = {
	[PN_HOOK_FORK] = { "attach_pid" },
	[PN_HOOK_EXEC] = { "setup_new_exec" },
	[PN_HOOK_EXIT] = { "exit_files" },
};

/*
 * The one callback, called at the ftrace site @ip of a hooked function:
 * its handler, called directly (no indirect call on the fork path).
 */
static void notrace pn_hook_call(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *ops,
				 struct pn_ftrace_regs *regs)
{
	preempt_disable_notrace();
	if (ip == pn_hooks[PN_HOOK_FORK].site)
		pn_hook_fork(regs);
	else if (ip == pn_hooks[PN_HOOK_EXEC].site)
		pn_hook_exec(regs);
	else if (ip == pn_hooks[PN_HOOK_EXIT].site)
		pn_hook_exit(regs);
	preempt_enable_notrace();
}

static struct ftrace_ops pn_ops = {
	.func = pn_hook_call,
	.flags = PN_FTRACE_OPS_FLAGS,
};

static DEFINE_MUTEX(pn_arm_lock);
static bool pn_hooks_armed;

/*
 * Arms the hooks if they are not yet.  Process context; a fatal signal
 * ends the wait for another arming.  Whoever it returns 0 to can rely on
 * them: they stay armed until unload.
 */
int pn_hooks_get(void)
{
	int err = 0;

	might_sleep();
	/* Pairs with the release below: armed means registered. */
	if (smp_load_acquire(&pn_hooks_armed))
		return 0;
	if (mutex_lock_killable(&pn_arm_lock))
		return -EINTR;
	if (!pn_hooks_armed) {
		err = register_ftrace_function(&pn_ops);
		if (err == -EBUSY) {
			/* Not busy: ftrace is off until someone turns it on. */
			pr_err_ratelimited("cannot arm the hooks: sysctl kernel.ftrace_enabled is 0\n");
			err = -EOPNOTSUPP;
		} else if (err) {
			pr_err_ratelimited("cannot arm the hooks (error %d)\n", err);
		} else {
			/* Pairs with the acquire above. */
			smp_store_release(&pn_hooks_armed, true);
		}
	}
	mutex_unlock(&pn_arm_lock);
	return err;
}

/*
 * The ftrace site of vmlinux's @function, found as a kprobe on it would be
 * placed (past an IBT landing pad); 0 if there is none.
 */
static unsigned long pn_ftrace_site(const char *function)
{
	struct kprobe kp = {
		.symbol_name = function,
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long site = 0;

	if (register_kprobe(&kp))
		return 0;
	if (kprobe_ftrace(&kp))
		site = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return site;
}

/*
 * Empties the filter, which frees it (5.10 does not export
 * ftrace_free_filter()); it fails only without memory, or with ftrace
 * shut down, and then leaks it.
 */
static void pn_hooks_unfilter(void)
{
	int err = ftrace_set_filter(&pn_ops, NULL, 0, 1);

	if (err)
		pr_warn("cannot free the hooks' filter (error %d)\n", err);
}

/* Installed disarmed: pn_hooks_get() arms them. */
static int pn_hooks_install(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < PN_NR_HOOKS; i++) {
		struct pn_hook *hook = &pn_hooks[i];

		hook->site = pn_ftrace_site(hook->function);
		err = hook->site ? ftrace_set_filter_ip(&pn_ops, hook->site,
							0, !i) : -ENOENT;
		if (err) {
			pr_err("cannot hook %s (error %d)%s\n", hook->function,
			       err, err == -ENOMEM ? "" :
			       ": this kernel has no such function, or ftrace cannot hook it");
			pn_hooks_unfilter();
			return err;
		}
	}
	return 0;
}

/*
 * Unload: the hooks off, and no CPU in the callback once this returns.
 * Unregistering waits for RCU Tasks.  If ftrace cannot unhook us (it shut
 * itself down after a bug), our text must stay: the unload waits for ever.
 */
static void pn_hooks_remove(void)
{
	int err = pn_hooks_armed ? unregister_ftrace_function(&pn_ops) : 0;

	if (WARN_ON(err)) {
		pr_emerg("ftrace cannot unhook fork, exec and exit (error %d): this unload waits for ever, since freeing pnotify would leave them calling freed code; reboot\n",
			 err);
		/* Idle: neither a hung task nor load. */
		for (;;)
			schedule_timeout_idle(600 * HZ);
	}
	pn_hooks_unfilter();
}

static int pn_proc_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < PN_NR_HOOKS; i++)
		seq_printf(m, "hook: %s ftrace %s\n", pn_hooks[i].function,
			   READ_ONCE(pn_hooks_armed) ? "armed" : "disarmed");
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
	pn_hooks_remove();
	pn_core_exit_module();
	pn_sync_exit();
}

module_init(pn_init);
module_exit(pn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pnotify: process fork, exec and exit notification for modules");
