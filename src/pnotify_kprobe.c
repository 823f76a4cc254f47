// SPDX-License-Identifier: GPL-2.0
/*
 * pnotify hook layer: where fork, exec and exit are seen on an unpatched
 * kernel.  Each hook is one kprobe (ftrace-based where the kernel supports
 * it) on a function that has kept its meaning for many releases; all are
 * installed from one table.  Handlers run with preemption disabled, on
 * PREEMPT_RT too: they hand the event to the core, which may take only raw
 * spinlocks and bit locks there, never allocates, and queues task works
 * for whatever must sleep.
 *
 * The hooks are armed only while the core holds them (a task is followed
 * or a subscription is being prepared): with nothing followed, a fork,
 * exec or exit costs what it costs without the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include "pnotify_internal.h"
#include "wrapper/kprobes.h"

static char *sync = "srcu";
module_param(sync, charp, 0444);
MODULE_PARM_DESC(sync, "reader/writer guard: rwsem, percpu or srcu (default)");

static unsigned int idle_ms = 1000;
module_param(idle_ms, uint, 0644);
MODULE_PARM_DESC(idle_ms, "how long the hooks stay armed once nothing is followed (ms)");

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

/*
 * The holds on the hooks.  They go from 0 to 1 only under pn_arm_lock,
 * after the hooks are armed, and are disarmed only under it with no hold:
 * whoever holds them knows they are armed.
 */
static atomic_long_t pn_hook_holds = ATOMIC_LONG_INIT(0);
static DEFINE_MUTEX(pn_arm_lock);
static bool pn_hooks_armed;

static void pn_hooks_disarm(unsigned int nr)
{
	while (nr)
		disable_kprobe(&pn_hooks[--nr]);
	pn_hooks_armed = false;
}

static int pn_hooks_arm(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(pn_hooks); i++) {
		err = enable_kprobe(&pn_hooks[i]);
		if (err) {
			pr_err("cannot arm the hook on %s (error %d)\n",
			       pn_hooks[i].symbol_name, err);
			pn_hooks_disarm(i);
			return err;
		}
	}
	pn_hooks_armed = true;
	return 0;
}

int pn_hooks_get(void)
{
	int err = 0;

	might_sleep();
	if (atomic_long_inc_not_zero(&pn_hook_holds))
		return 0;
	mutex_lock(&pn_arm_lock);
	if (!pn_hooks_armed)
		err = pn_hooks_arm();
	if (!err)
		atomic_long_inc(&pn_hook_holds);
	mutex_unlock(&pn_arm_lock);
	return err;
}

void pn_hooks_hold(void)
{
	WARN_ON_ONCE(atomic_long_inc_return(&pn_hook_holds) < 2);
}

static void pn_hooks_idle(struct work_struct *work)
{
	mutex_lock(&pn_arm_lock);
	if (pn_hooks_armed && !atomic_long_read(&pn_hook_holds))
		pn_hooks_disarm(ARRAY_SIZE(pn_hooks));
	mutex_unlock(&pn_arm_lock);
}

static DECLARE_DELAYED_WORK(pn_idle_work, pn_hooks_idle);

/* Any context: the timer and workqueue locks are raw on PREEMPT_RT. */
void pn_hooks_put(void)
{
	if (atomic_long_dec_and_test(&pn_hook_holds))
		queue_delayed_work(system_wq, &pn_idle_work,
				   msecs_to_jiffies(READ_ONCE(idle_ms)));
}

static void pn_hooks_remove(unsigned int nr)
{
	while (nr)
		unregister_kprobe(&pn_hooks[--nr]);
}

/* Installed disarmed: pn_hooks_get() arms them. */
static int pn_hooks_install(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(pn_hooks); i++) {
		pn_hooks[i].flags = KPROBE_FLAG_DISABLED;
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
		seq_printf(m, "hook: %s %s %s\n", pn_hooks[i].symbol_name,
			   kprobe_ftrace(&pn_hooks[i]) ? "ftrace" : "kprobe",
			   kprobe_disabled(&pn_hooks[i]) ? "disarmed" : "armed");
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
	/* The core's last entries, freed by RCU, may have queued it. */
	cancel_delayed_work_sync(&pn_idle_work);
	pn_sync_exit();
}

module_init(pn_init);
module_exit(pn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pnotify: process fork, exec and exit notification for modules");
