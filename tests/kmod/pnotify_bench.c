// SPDX-License-Identifier: GPL-2.0
/*
 * pnotify_bench: in-kernel benchmarks of pnotify's dispatch and its guard.
 *
 * /proc/pnotify_bench, written by root:
 *   "rw READERS WRITERS MSECS"  the reader/writer table of the 2001 rwsem
 *       benchmarks: READERS kernel threads dispatch the writer's exec
 *       callbacks (pnotify's lookup, guard read side and callbacks) while
 *       WRITERS kernel threads register and unregister subscribers (the
 *       guard's write side), for MSECS; counts each side's operations.
 *   "cost LOOPS"  the time of one exec dispatch for the writing task, the
 *       mean of LOOPS in a row: the lookup alone for a task nobody follows,
 *       the whole dispatch for one that is followed.
 * Reading gives the result of the last command, one line of key=value.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <pnotify.h>
#include "kmod_proc.h"
#include "pnotify_internal.h"

MODULE_IMPORT_NS(PNOTIFY_INTERNAL);

#define BENCH_MAX_THREADS	16
#define BENCH_MAX_MSECS		60000

/* Children of the followed task are not followed: fork drops them. */
static int bench_fork(struct task_struct *task, struct pnotify_subscriber *sub,
		      void *parent_data)
{
	return 1;
}

static void bench_exit(struct task_struct *task, struct pnotify_subscriber *sub)
{
}

/* Empty: the benchmark measures pnotify's part of a dispatch. */
static void bench_exec(struct task_struct *task, struct pnotify_subscriber *sub)
{
}

/* The subscriber whose exec callbacks the readers dispatch. */
static struct pnotify_events bench_events = {
	.module = THIS_MODULE,
	.name = "pnotify_bench",
	.fork = bench_fork,
	.exec = bench_exec,
	.exit = bench_exit,
};

struct bench_thread {
	struct task_struct *kthread;
	struct pnotify_events events;	/* a writer's subscriber */
	char name[PNOTIFY_NAME_MAX];
	unsigned long ops;
};

static struct bench_thread bench_threads[BENCH_MAX_THREADS];
static struct task_struct *bench_target;
/* Operations finished after bench_stop is set are not counted. */
static bool bench_stop;
static DEFINE_MUTEX(bench_mutex);	/* one command at a time */
static char bench_result[160];

static int bench_reader(void *arg)
{
	struct bench_thread *t = arg;

	while (!kthread_should_stop()) {
		if (!pn_core_dispatch_exec(bench_target) &&
		    !READ_ONCE(bench_stop))
			t->ops++;
		cond_resched();
	}
	return 0;
}

static int bench_writer(void *arg)
{
	struct bench_thread *t = arg;

	while (!kthread_should_stop()) {
		if (!pnotify_register(&t->events)) {
			pnotify_unregister(&t->events);
			if (!READ_ONCE(bench_stop))
				t->ops++;
		}
		cond_resched();
	}
	return 0;
}

static int bench_start(unsigned int i, bool reader)
{
	struct bench_thread *t = &bench_threads[i];

	memset(t, 0, sizeof(*t));
	if (!reader) {
		snprintf(t->name, sizeof(t->name), "pnotify_bench_w%u", i);
		t->events.module = THIS_MODULE;
		t->events.name = t->name;
		t->events.fork = bench_fork;
		t->events.exit = bench_exit;
	}
	t->kthread = kthread_run(reader ? bench_reader : bench_writer, t,
				 "pnbench_%c%u", reader ? 'r' : 'w', i);
	if (IS_ERR(t->kthread)) {
		int err = PTR_ERR(t->kthread);

		t->kthread = NULL;
		return err;
	}
	return 0;
}

/* Stops the first @nr threads; returns the readers' and writers' ops. */
static void bench_stop_threads(unsigned int nr, unsigned int readers,
			       unsigned long *reader_ops,
			       unsigned long *writer_ops)
{
	unsigned int i;

	WRITE_ONCE(bench_stop, true);
	*reader_ops = 0;
	*writer_ops = 0;
	for (i = 0; i < nr; i++) {
		struct bench_thread *t = &bench_threads[i];

		if (!t->kthread)
			continue;
		kthread_stop(t->kthread);
		if (i < readers)
			*reader_ops += t->ops;
		else
			*writer_ops += t->ops;
	}
}

static int bench_rw(unsigned int readers, unsigned int writers,
		    unsigned int msecs)
{
	unsigned long reader_ops, writer_ops;
	unsigned int i, nr = readers + writers;
	int err;

	if (nr == 0 || nr > BENCH_MAX_THREADS || !msecs ||
	    msecs > BENCH_MAX_MSECS)
		return -EINVAL;
	/* The readers dispatch the callbacks of the writing task. */
	err = pnotify_subscribe(current, &bench_events, NULL);
	if (err)
		return err;
	bench_target = current;
	WRITE_ONCE(bench_stop, false);
	for (i = 0; i < nr && !err; i++)
		err = bench_start(i, i < readers);
	if (!err)
		msleep(msecs);
	bench_stop_threads(i, readers, &reader_ops, &writer_ops);
	pnotify_unsubscribe(current, &bench_events);
	if (err)
		return err;
	snprintf(bench_result, sizeof(bench_result),
		 "rw readers=%u writers=%u msecs=%u reader_ops=%lu writer_ops=%lu\n",
		 readers, writers, msecs, reader_ops, writer_ops);
	return 0;
}

static int bench_cost(unsigned int loops)
{
	u64 start, ns;
	unsigned int i;
	int ret = 0;

	if (!loops)
		return -EINVAL;
	start = ktime_get_ns();
	for (i = 0; i < loops; i++) {
		ret = pn_core_dispatch_exec(current);
		cond_resched();
	}
	ns = ktime_get_ns() - start;
	snprintf(bench_result, sizeof(bench_result),
		 "cost followed=%d loops=%u ns_per_dispatch=%llu\n",
		 ret == 0, loops, div_u64(ns, loops));
	return 0;
}

static int bench_command(char *cmd)
{
	unsigned int a, b, c;
	int err = -EINVAL;

	mutex_lock(&bench_mutex);
	if (sscanf(cmd, "rw %u %u %u", &a, &b, &c) == 3)
		err = bench_rw(a, b, c);
	else if (sscanf(cmd, "cost %u", &a) == 1)
		err = bench_cost(a);
	mutex_unlock(&bench_mutex);
	return err;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	return kmod_proc_command(ubuf, len, bench_command);
}

static int bench_show(struct seq_file *m, void *v)
{
	mutex_lock(&bench_mutex);
	seq_puts(m, bench_result);
	mutex_unlock(&bench_mutex);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, NULL);
}

static const struct proc_ops bench_proc_ops = {
	.proc_open = bench_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = bench_write,
};

static int __init bench_module_init(void)
{
	int err = pnotify_register(&bench_events);

	if (err)
		return err;
	if (!proc_create("pnotify_bench", 0600, NULL, &bench_proc_ops)) {
		pnotify_unregister(&bench_events);
		return -ENOMEM;
	}
	return 0;
}

static void __exit bench_module_exit(void)
{
	remove_proc_entry("pnotify_bench", NULL);
	pnotify_unregister(&bench_events);
}

module_init(bench_module_init);
module_exit(bench_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pnotify dispatch and guard benchmarks");
