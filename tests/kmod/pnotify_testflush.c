// SPDX-License-Identifier: GPL-2.0
/*
 * A character device whose ->flush blocks an exiting task, for tests: what
 * a flush to a stopped FUSE daemon does (fuse_flush() waits for the
 * daemon's answer), without a daemon.  close_files() in exit_files()
 * flushes every open file, after pnotify's exit hook (before exit_files())
 * has queued the exiting task's exit work: the task is held between the
 * hook and exit_task_work().  The module does not use pnotify, so pnotify
 * can be unloaded while a task is held here.
 *
 * /dev/pnotify_testflush:
 *   the flush of a descriptor opened for reading and writing (sh: 3<>),
 *   by an exiting task (PF_EXITING), sleeps, uninterruptibly as FUSE's
 *   does once its request is sent, until released, or for at most hold_s
 *   seconds (under the hung-task detector's 120 s); any other flush (of
 *   the readers and writers below) returns at once.  With hold_release=1
 *   (and hold_flush=0) the release does instead: the last fput() of an
 *   exiting task runs it from a task work queued in exit_files(), after
 *   pnotify's exit hook, so exit_task_work() runs it first (task works
 *   run newest first), with pnotify's exit work taken along, to run next.
 *   Reading gives "held N released B": the tasks sleeping in a flush now.
 *   Writing "1" releases them (and every later flush), "0" holds again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

static unsigned int hold_s = 60;
module_param(hold_s, uint, 0644);
MODULE_PARM_DESC(hold_s, "at most how long an exiting task's flush sleeps (s)");

static bool hold_flush = true;
module_param(hold_flush, bool, 0644);
MODULE_PARM_DESC(hold_flush, "an exiting task's flush sleeps");

static bool hold_release;
module_param(hold_release, bool, 0644);
MODULE_PARM_DESC(hold_release, "an exiting task's release sleeps");

static DECLARE_WAIT_QUEUE_HEAD(testflush_wq);
static atomic_t testflush_held = ATOMIC_INIT(0);
static bool testflush_released;

static void testflush_hold(struct file *file, bool hold, const char *what)
{
	if (!hold || (file->f_mode & (FMODE_READ | FMODE_WRITE)) !=
	    (FMODE_READ | FMODE_WRITE) ||
	    !(current->flags & PF_EXITING) || READ_ONCE(testflush_released))
		return;
	atomic_inc(&testflush_held);
	pr_info("holding %s (pid %d) in its exit's %s\n", current->comm,
		task_pid_nr(current), what);
	/* Under the hung task detector's 120 s. */
	wait_event_timeout(testflush_wq, READ_ONCE(testflush_released),
			   min(READ_ONCE(hold_s), 100U) * HZ);
	atomic_dec(&testflush_held);
	pr_info("%s (pid %d) leaves its exit's %s\n", current->comm,
		task_pid_nr(current), what);
}

static int testflush_flush(struct file *file, fl_owner_t id)
{
	testflush_hold(file, READ_ONCE(hold_flush), "flush");
	return 0;
}

static int testflush_release(struct inode *inode, struct file *file)
{
	testflush_hold(file, READ_ONCE(hold_release), "release");
	return 0;
}

static ssize_t testflush_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	char text[48];
	int len;

	len = scnprintf(text, sizeof(text), "held %d released %d\n",
			atomic_read(&testflush_held),
			READ_ONCE(testflush_released));
	return simple_read_from_buffer(buf, count, ppos, text, len);
}

static ssize_t testflush_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	bool release;
	int err;

	err = kstrtobool_from_user(buf, count, &release);
	if (err)
		return err;
	WRITE_ONCE(testflush_released, release);
	if (release)
		wake_up_all(&testflush_wq);
	return count;
}

static const struct file_operations testflush_fops = {
	.owner = THIS_MODULE,
	.flush = testflush_flush,
	.release = testflush_release,
	.read = testflush_read,
	.write = testflush_write,
	.llseek = noop_llseek,
};

static struct miscdevice testflush_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "pnotify_testflush",
	.fops = &testflush_fops,
	.mode = 0600,	/* root alone may hold exiting tasks */
};

static int __init testflush_init(void)
{
	return misc_register(&testflush_dev);
}

static void __exit testflush_exit(void)
{
	misc_deregister(&testflush_dev);
}

module_init(testflush_init);
module_exit(testflush_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test only: a device whose flush holds an exiting task");
