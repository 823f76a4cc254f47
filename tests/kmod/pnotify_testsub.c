// SPDX-License-Identifier: GPL-2.0
/*
 * A pnotify subscriber for tests.  It counts its callbacks and does in each
 * what real subscribers do and a kprobe handler must not: it sleeps, it
 * allocates with GFP_KERNEL and it takes an rwsem for writing.
 *
 * /proc/pnotify_testsub, written by the task it concerns:
 *   "subscribe [PID]"    subscribe the writer (or PID), children kept
 *   "unsubscribe [PID]"
 *   "mode keep|drop|fail" what the fork callback does with the writer's
 *                        children: keep them, drop them (return 1), or fail
 *                        them (return -ENOMEM: they must die unseen)
 *   "call [PID]"         pnotify_call() on its subscription: "call: N"
 *                        counts those run, each checked to run in its task
 * Reading gives the counters, whether the reader is subscribed and how many
 * exec callbacks its subscription has had ("execs here").  Subscriptions
 * are of processes: "threads: N" sums the threads made in those ended.
 *
 * With leave=1 it also has the exit's atomic step, leave(): checked to run
 * atomic in the exiting task itself, it ends the subscriptions of
 * processes with an even tgid there and asks for exit() for the others, so
 * that both ends are seen; "leave: N" counts its calls.
 *
 * With data_bytes=N it also registers testsub_data, whose N bytes of data
 * a subscription pnotify provides (data_size): "subscribe-data [PID]"
 * subscribes the writer (or PID), children kept.  Each child's inherit()
 * counts a byte of it found set ("data dirty"), then sets them all, so that
 * a block used again comes back dirty unless the fork zeroes it.
 *
 * Every subscription's data stays on a list until unload, marked by its
 * exit callback (or the leave() that ended it): at unload, after pnotify_unregister(), each must have had
 * exactly one (counted in "unbalanced" otherwise, with a WARN), and the
 * module logs "testsub: N subscriptions, N exits, 0 unbalanced".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <pnotify.h>
#include "kmod_proc.h"

static unsigned int sleep_ms = 1;
module_param(sleep_ms, uint, 0444);
MODULE_PARM_DESC(sleep_ms, "milliseconds each callback sleeps");

static bool init_all;
module_param(init_all, bool, 0444);
MODULE_PARM_DESC(init_all, "subscribe every task running at load time");

static bool leave;
module_param(leave, bool, 0444);
MODULE_PARM_DESC(leave, "end the exits of even pids in the atomic leave() step");

static unsigned int data_bytes;
module_param(data_bytes, uint, 0444);
MODULE_PARM_DESC(data_bytes, "bytes of data pnotify provides to testsub_data (0: not registered)");

enum testsub_mode { TESTSUB_KEEP, TESTSUB_DROP, TESTSUB_FAIL };

static const char * const testsub_modes[] = {
	[TESTSUB_KEEP] = "keep",
	[TESTSUB_DROP] = "drop",
	[TESTSUB_FAIL] = "fail",
};

struct testsub_data {
	enum testsub_mode mode;
	atomic_t exits;			/* exit callbacks run for it */
	atomic_t execs;			/* exec callbacks run for it */
	pid_t pid;			/* tgid of the process it was made for */
	struct list_head link;		/* on testsub_all, until unload */
};

static DECLARE_RWSEM(testsub_rwsem);
static atomic_long_t nr_fork, nr_exec, nr_exit, nr_unsub, nr_init;
static atomic_long_t nr_live, nr_foreign, nr_unbalanced, nr_leave, nr_call;
static atomic_long_t nr_threads, nr_data_inherit, nr_data_dirty;
static LIST_HEAD(testsub_all);
static DEFINE_SPINLOCK(testsub_all_lock);

/* What every callback does: the work that needs a sleepable context. */
static void testsub_sleep(struct task_struct *task, bool own_context)
{
	void *scratch;

	might_sleep();
	if (own_context && task != current)
		atomic_long_inc(&nr_foreign);
	scratch = kmalloc(256, GFP_KERNEL);
	down_write(&testsub_rwsem);
	if (sleep_ms)
		msleep(sleep_ms);
	up_write(&testsub_rwsem);
	kfree(scratch);
}

static struct testsub_data *testsub_data_new(struct task_struct *task,
					     enum testsub_mode mode)
{
	struct testsub_data *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (d) {
		d->mode = mode;
		d->pid = task_tgid_nr(task);
		atomic_long_inc(&nr_live);
		spin_lock(&testsub_all_lock);
		list_add_tail(&d->link, &testsub_all);
		spin_unlock(&testsub_all_lock);
	}
	return d;
}

/* Data never given to pnotify (the subscription failed). */
static void testsub_data_free(struct testsub_data *d)
{
	spin_lock(&testsub_all_lock);
	list_del(&d->link);
	spin_unlock(&testsub_all_lock);
	atomic_long_dec(&nr_live);
	kfree(d);
}

static int testsub_init(struct task_struct *task, struct pnotify_subscriber *sub)
{
	testsub_sleep(task, false);
	sub->data = testsub_data_new(task, TESTSUB_KEEP);
	if (!sub->data)
		return -ENOMEM;
	atomic_long_inc(&nr_init);
	return 0;
}

static int testsub_fork(struct task_struct *task, struct pnotify_subscriber *sub,
			void *parent_data)
{
	const struct testsub_data *parent = parent_data;

	testsub_sleep(task, true);
	atomic_long_inc(&nr_fork);
	if (parent->mode == TESTSUB_DROP)
		return 1;
	if (parent->mode == TESTSUB_FAIL)
		return -ENOMEM;
	sub->data = testsub_data_new(task, parent->mode);
	return sub->data ? 0 : -ENOMEM;
}

static void testsub_exec(struct task_struct *task, struct pnotify_subscriber *sub)
{
	struct testsub_data *d = sub->data;

	testsub_sleep(task, true);
	atomic_inc(&d->execs);
	atomic_long_inc(&nr_exec);
}

/*
 * The end of @d's subscription, @sub: counted, and checked to be its only
 * one, for its own process.
 */
static void testsub_count_exit(struct task_struct *task,
			       struct pnotify_subscriber *sub)
{
	struct testsub_data *d = sub->data;

	atomic_long_inc(atomic_read(&task->signal->live) ? &nr_unsub :
							   &nr_exit);
	atomic_long_add(pnotify_threads_made(sub), &nr_threads);
	if (WARN(atomic_inc_return(&d->exits) != 1 || d->pid != task_tgid_nr(task),
		 "testsub: exit callback %d for process %d's subscription, in process %d\n",
		 atomic_read(&d->exits), d->pid, task_tgid_nr(task)))
		atomic_long_inc(&nr_unbalanced);
	else
		atomic_long_dec(&nr_live);
}

static void testsub_exit(struct task_struct *task, struct pnotify_subscriber *sub)
{
	testsub_sleep(task, false);
	testsub_count_exit(task, sub);
}

static int testsub_leave(struct task_struct *task,
			 struct pnotify_subscriber *sub)
{
	struct testsub_data *d = sub->data;

	atomic_long_inc(&nr_leave);
	/* Preemption and interrupts off: see pnotify.h. */
	if (WARN(preemptible() || !irqs_disabled() || task != current ||
		 atomic_read(&task->signal->live),
		 "testsub: leave() for process %d in pid %d, preemptible %d, interrupts off %d\n",
		 d->pid, task_pid_nr(current), preemptible(), irqs_disabled()))
		atomic_long_inc(&nr_unbalanced);
	if (task_tgid_nr(task) & 1)
		return PNOTIFY_CALL_EXIT;
	testsub_count_exit(task, sub);
	return 0;
}

static void testsub_call(struct task_struct *task,
			 struct pnotify_subscriber *sub)
{
	struct testsub_data *d = sub->data;

	if (WARN(task != current || d->pid != task_tgid_nr(task),
		 "testsub: call for process %d's subscription, in process %d\n",
		 d->pid, task_tgid_nr(current)))
		atomic_long_inc(&nr_unbalanced);
	atomic_long_inc(&nr_call);
}

static struct pnotify_events testsub_events = {
	.module = THIS_MODULE,
	.name = "testsub",
	.fork = testsub_fork,
	.exec = testsub_exec,
	.exit = testsub_exit,
};

/* In the fork hook: the child's data must come zeroed; it leaves it set. */
static int testsub_data_inherit(struct task_struct *child,
				struct pnotify_subscriber *sub,
				struct pnotify_subscriber *parent)
{
	atomic_long_inc(&nr_data_inherit);
	if (memchr_inv(sub->data, 0, data_bytes))
		atomic_long_inc(&nr_data_dirty);
	memset(sub->data, 0xa5, data_bytes);
	return 0;
}

/* Ends every exit in the hook, whose blocks are used again at once. */
static int testsub_data_leave(struct task_struct *task,
			      struct pnotify_subscriber *sub)
{
	return 0;
}

/* Nothing to free: pnotify owns the data. */
static void testsub_data_exit(struct task_struct *task,
			      struct pnotify_subscriber *sub)
{
}

static struct pnotify_events testsub_data_events = {
	.module = THIS_MODULE,
	.name = "testsub_data",
	.inherit = testsub_data_inherit,
	.leave = testsub_data_leave,
	.exit = testsub_data_exit,
};

static int testsub_show(struct seq_file *m, void *v)
{
	struct pnotify_subscriber *sub;

	sub = pnotify_get_subscriber(current, testsub_events.name);
	seq_printf(m, "subscribed: %d\n", !!sub);
	if (sub) {
		seq_printf(m, "execs here: %d\n",
			   atomic_read(&((struct testsub_data *)sub->data)->execs));
		pnotify_put_subscriber(sub);
	}
	seq_printf(m, "fork: %ld\nexec: %ld\nexit: %ld\nunsubscribe: %ld\n",
		   atomic_long_read(&nr_fork), atomic_long_read(&nr_exec),
		   atomic_long_read(&nr_exit), atomic_long_read(&nr_unsub));
	seq_printf(m, "init: %ld\nlive: %ld\nforeign: %ld\nunbalanced: %ld\n",
		   atomic_long_read(&nr_init), atomic_long_read(&nr_live),
		   atomic_long_read(&nr_foreign),
		   atomic_long_read(&nr_unbalanced));
	seq_printf(m, "leave: %ld\n", atomic_long_read(&nr_leave));
	seq_printf(m, "call: %ld\n", atomic_long_read(&nr_call));
	seq_printf(m, "threads: %ld\n", atomic_long_read(&nr_threads));
	if (data_bytes)
		seq_printf(m, "data inherit: %ld\ndata dirty: %ld\n",
			   atomic_long_read(&nr_data_inherit),
			   atomic_long_read(&nr_data_dirty));
	return 0;
}

static int testsub_open(struct inode *inode, struct file *file)
{
	return single_open(file, testsub_show, NULL);
}

/* The task a command names: the writer, or the task of "PID". */
static struct task_struct *testsub_target(const char *arg)
{
	struct task_struct *task;
	pid_t pid;

	if (!*arg) {
		get_task_struct(current);
		return current;
	}
	if (kstrtoint(arg, 10, &pid))
		return ERR_PTR(-EINVAL);
	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task ?: ERR_PTR(-ESRCH);
}

static int testsub_set_mode(const char *arg)
{
	struct pnotify_subscriber *sub;
	int mode = sysfs_match_string(testsub_modes, arg);

	if (mode < 0)
		return -EINVAL;
	sub = pnotify_get_subscriber(current, testsub_events.name);
	if (!sub)
		return -ENOENT;
	((struct testsub_data *)sub->data)->mode = mode;
	pnotify_put_subscriber(sub);
	return 0;
}

static int testsub_command(char *cmd)
{
	char *arg = strim(cmd), *verb = strsep(&arg, " ");
	struct task_struct *task;
	struct testsub_data *d;
	int err;

	arg = arg ? strim(arg) : "";
	if (!strcmp(verb, "mode"))
		return testsub_set_mode(arg);
	if (strcmp(verb, "subscribe") && strcmp(verb, "unsubscribe") &&
	    strcmp(verb, "call") &&
	    (strcmp(verb, "subscribe-data") || !data_bytes))
		return -EINVAL;
	task = testsub_target(arg);
	if (IS_ERR(task))
		return PTR_ERR(task);
	if (!strcmp(verb, "subscribe-data")) {
		err = pnotify_subscribe(task, &testsub_data_events, NULL);
	} else if (!strcmp(verb, "unsubscribe")) {
		err = pnotify_unsubscribe(task, &testsub_events);
	} else if (!strcmp(verb, "call")) {
		err = pnotify_call(task, &testsub_events, testsub_call);
	} else {
		d = testsub_data_new(task, TESTSUB_KEEP);
		err = d ? pnotify_subscribe(task, &testsub_events, d) : -ENOMEM;
		if (err && d)
			testsub_data_free(d);
	}
	put_task_struct(task);
	return err;
}

static ssize_t testsub_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	return kmod_proc_command(ubuf, len, testsub_command);
}

static const struct proc_ops testsub_proc_ops = {
	.proc_open = testsub_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = testsub_write,
};

static int __init testsub_module_init(void)
{
	int err;

	if (init_all)
		testsub_events.init = testsub_init;
	if (leave)
		testsub_events.leave = testsub_leave;
	err = pnotify_register(&testsub_events);
	if (err)
		return err;
	if (data_bytes) {
		testsub_data_events.data_size = data_bytes;
		err = pnotify_register(&testsub_data_events);
		if (err) {
			pnotify_unregister(&testsub_events);
			return err;
		}
	}
	if (!proc_create("pnotify_testsub", 0644, NULL, &testsub_proc_ops)) {
		if (data_bytes)
			pnotify_unregister(&testsub_data_events);
		pnotify_unregister(&testsub_events);
		return -ENOMEM;
	}
	return 0;
}

/*
 * After pnotify_unregister(), every subscription has ended: each of them
 * had its exit callback, once.
 */
static void testsub_check_balance(void)
{
	struct testsub_data *d, *next;
	long subs = 0, exits = 0, unbalanced = 0;

	list_for_each_entry_safe(d, next, &testsub_all, link) {
		subs++;
		exits += atomic_read(&d->exits);
		if (atomic_read(&d->exits) != 1) {
			unbalanced++;
			if (unbalanced <= 10)
				pr_err("process %d's subscription had %d exit callbacks\n",
				       d->pid, atomic_read(&d->exits));
		}
		list_del(&d->link);
		kfree(d);
	}
	pr_info("testsub: %ld subscriptions, %ld exits, %ld unbalanced\n",
		subs, exits, unbalanced);
	WARN_ON(unbalanced || atomic_long_read(&nr_unbalanced) ||
		atomic_long_read(&nr_live));
}

static void __exit testsub_module_exit(void)
{
	remove_proc_entry("pnotify_testsub", NULL);
	if (data_bytes)
		pnotify_unregister(&testsub_data_events);
	pnotify_unregister(&testsub_events);
	testsub_check_balance();
}

module_init(testsub_module_init);
module_exit(testsub_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pnotify test subscriber");
