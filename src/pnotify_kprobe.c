// SPDX-License-Identifier: GPL-2.0
/*
 * pnotify hook layer: where fork, exec and exit are seen on an unpatched
 * kernel.  Each hook is one kprobe (ftrace-based where the kernel supports
 * it) on a function that has kept its meaning for many releases; all are
 * installed from one table.  Handlers run with preemption disabled, on
 * PREEMPT_RT too: they hand the event to the core, which may take only raw
 * spinlocks and bit locks there, never allocates, and queues task works
 * for whatever must sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include "pnotify_internal.h"
#include "wrapper/kprobes.h"

static char *sync = "srcu";
module_param(sync, charp, 0444);
MODULE_PARM_DESC(sync, "reader/writer guard: rwsem, percpu or srcu (default)");

/*
 * attach_pid(p, PIDTYPE_PID) in copy_process(): every new task, fork, vfork,
 * clone and clone3 alike, in the forking task, past the fork's last failure
 * point and before the child can be found by pid, so that it is followed
 * from the instant it exists.  Runs with interrupts off under tasklist_lock
 * and the parent's siglock: nothing here may sleep, allocate, or signal
 * the usual way.  (change_pid() attaches the other pid types.)
 */
static int pn_hook_fork(struct kprobe *kp, struct pt_regs *regs)
{
	if (pn_hook_arg(regs, 1) == PIDTYPE_PID)
		pn_core_fork(current,
			     (struct task_struct *)pn_hook_arg(regs, 0));
	return 0;
}

/*
 * setup_new_exec(bprm): called by every binary format once exec is past
 * its point of no return, in the exec'ing task.  Only queues a task work.
 */
static int pn_hook_exec(struct kprobe *kp, struct pt_regs *regs)
{
	pn_core_exec(current);
	return 0;
}

/*
 * exit_files(tsk) in do_exit(): after PF_EXITING is set, which orders the
 * hook against subscriptions made from other tasks, and before
 * exit_task_work().  copy_process() also calls it on a failed child, which
 * was never followed.  Only queues a task work.
 */
static int pn_hook_exit(struct kprobe *kp, struct pt_regs *regs)
{
	if ((struct task_struct *)pn_hook_arg(regs, 0) == current)
		pn_core_exit(current);
	return 0;
}

static struct kprobe pn_hooks[] = {
	{ .symbol_name = "attach_pid", .pre_handler = pn_hook_fork },
	{ .symbol_name = "setup_new_exec", .pre_handler = pn_hook_exec },
	{ .symbol_name = "exit_files", .pre_handler = pn_hook_exit },
};

static void pn_hooks_remove(unsigned int nr)
{
	while (nr)
		unregister_kprobe(&pn_hooks[--nr]);
}

static int pn_hooks_install(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(pn_hooks); i++) {
		err = register_kprobe(&pn_hooks[i]);
		if (err) {
			pr_err("cannot hook %s (error %d)%s\n",
			       pn_hooks[i].symbol_name, err,
			       err == -ENOENT ?
			       ": this kernel has no such function" : "");
			pn_hooks_remove(i);
			return err;
		}
	}
	return 0;
}

static int pn_proc_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pn_hooks); i++)
		seq_printf(m, "hook: %s %s\n", pn_hooks[i].symbol_name,
			   kprobe_ftrace(&pn_hooks[i]) ? "ftrace" : "kprobe");
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
	pn_hooks_remove(ARRAY_SIZE(pn_hooks));
out_core:
	pn_core_exit_module();
out_sync:
	pn_sync_exit();
	return err;
}

static void __exit pn_exit(void)
{
	remove_proc_entry("pnotify", NULL);
	pn_hooks_remove(ARRAY_SIZE(pn_hooks));
	pn_core_exit_module();
	pn_sync_exit();
}

module_init(pn_init);
module_exit(pn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pnotify: process fork, exec and exit notification for modules");
