// SPDX-License-Identifier: GPL-2.0
/*
 * job: inescapable process containers, as a pnotify subscriber, with the ABI
 * of SGI's Linux Job on /proc/job (include/uapi/job.h).
 *
 * A job is a set of tasks (processes and their threads) sharing a 64-bit
 * JID.  Every member carries a pnotify subscription whose data is its
 * struct job_member; pnotify's inherit callback puts each child of a member
 * in the job in the fork itself, before the child can be found by pid,
 * whatever the clone flags.  The job ends when its last task exits or is
 * detached; waiters then wake, and a final accounting record stays readable
 * until taken or pushed out.
 *
 * This file holds the jobs, their JID table and their membership (the
 * subscriber's callbacks, attaching and detaching processes and threads);
 * kill and wait are in job_signal.c, accounting in job_acct.c, the
 * /proc/job requests and their 32-bit layout in job_ioctl.c, and
 * job_internal.h is what they share.
 *
 * Locks: job_move_lock (create, attach, detach), then job->lock (members,
 * processes, sums, kills: a raw spinlock taken with interrupts off, since
 * the fork hook takes it under siglock and tasklist_lock),
 * job_table_lock (the JID table, the backlog, the host id).  Nothing under
 * job->lock allocates, sleeps or signals: lists are copied out under it and
 * used after.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <job_kernel.h>
#include "job_internal.h"
#include "wrapper/sched.h"
#include "wrapper/spinlock.h"

unsigned int job_hid;
module_param_named(hid, job_hid, uint, 0444);
MODULE_PARM_DESC(hid, "host id, the upper 32 bits of new JIDs (0xffffffff disables job creation)");

DEFINE_MUTEX(job_table_lock);
/* Serialises moving processes in and out of jobs (not forks). */
DEFINE_MUTEX(job_move_lock);
DEFINE_HASHTABLE(job_table, JOB_TABLE_BITS);
unsigned int job_count;
static u32 job_counter;
static u64 job_last_id;

static BLOCKING_NOTIFIER_HEAD(job_notifiers);

int job_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&job_notifiers, nb);
}
EXPORT_SYMBOL_GPL(job_register_notifier);

int job_unregister_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_unregister(&job_notifiers, nb);
}
EXPORT_SYMBOL_GPL(job_unregister_notifier);

/*
 * The exec watcher: its due() is job's exec_due(), called by pnotify's exec
 * hook with preemption disabled; its exec() runs from a member's exec work
 * under job_exec_srcu.  One watcher, so that a member's exec costs one call.
 */
static struct job_exec_watcher __rcu *job_exec_watcher;
static DEFINE_MUTEX(job_exec_watcher_lock);
DEFINE_STATIC_SRCU(job_exec_srcu);

static bool job_exec_never_due(struct task_struct *task,
			       struct pnotify_subscriber *sub)
{
	return false;
}

int job_register_exec_watcher(struct job_exec_watcher *watcher)
{
	int err = -EBUSY;

	mutex_lock(&job_exec_watcher_lock);
	if (!rcu_access_pointer(job_exec_watcher)) {
		rcu_assign_pointer(job_exec_watcher, watcher);
		/* An exec found due finds the watcher in its exec work. */
		smp_store_release(&job_events.exec_due, watcher->due);
		err = 0;
	}
	mutex_unlock(&job_exec_watcher_lock);
	return err;
}
EXPORT_SYMBOL_GPL(job_register_exec_watcher);

/* Does nothing to a watcher not registered, as another may be. */
void job_unregister_exec_watcher(struct job_exec_watcher *watcher)
{
	mutex_lock(&job_exec_watcher_lock);
	if (rcu_access_pointer(job_exec_watcher) != watcher) {
		mutex_unlock(&job_exec_watcher_lock);
		return;
	}
	WRITE_ONCE(job_events.exec_due, job_exec_never_due);
	RCU_INIT_POINTER(job_exec_watcher, NULL);
	mutex_unlock(&job_exec_watcher_lock);
	synchronize_rcu();
	synchronize_srcu(&job_exec_srcu);
}
EXPORT_SYMBOL_GPL(job_unregister_exec_watcher);

static void job_notify(struct job *job, enum job_event_type type,
		       struct task_struct *task)
{
	struct job_event event = {
		.jid = job->jid, .id = job->id, .owner = job->owner,
		.task = task,
	};

	blocking_notifier_call_chain(&job_notifiers, type, &event);
}

/* ---- jobs ---------------------------------------------------------------- */

void job_put(struct job *job)
{
	if (refcount_dec_and_test(&job->ref)) {
		put_pid(job->prime);
		kfree(job);
	}
}

static struct job *job_lookup_locked(u64 jid)
{
	struct job *job;

	lockdep_assert_held(&job_table_lock);
	hash_for_each_possible(job_table, job, table_node, jid)
		if (job->jid == jid)
			return job;
	return NULL;
}

/* A referenced live job, or NULL. */
struct job *job_get(u64 jid)
{
	struct job *job;

	mutex_lock(&job_table_lock);
	job = job_lookup_locked(jid);
	if (job)
		refcount_inc(&job->ref);
	mutex_unlock(&job_table_lock);
	return job;
}

/* Allocates a JID (or takes the requested one) and enters the job. */
int job_insert(struct job *job, u64 requested)
{
	u64 jid = requested;
	u32 tries;

	mutex_lock(&job_table_lock);
	if (requested) {
		if (job_lookup_locked(requested)) {
			mutex_unlock(&job_table_lock);
			return -EBUSY;
		}
	} else {
		for (tries = 0; ; tries++) {
			if (tries == U32_MAX) {
				mutex_unlock(&job_table_lock);
				return -EBUSY;
			}
			if (!++job_counter)
				job_counter = 1;
			jid = (u64)job_hid << 32 | job_counter;
			if (!job_lookup_locked(jid))
				break;
		}
	}
	job->jid = jid;
	job->id = ++job_last_id;
	hash_add(job_table, &job->table_node, jid);
	/* The table's reference, which job_end() drops: members hold none. */
	refcount_inc(&job->ref);
	job_count++;
	mutex_unlock(&job_table_lock);
	return 0;
}


/*
 * Returns with job->lock held and a buffer of room for *@count (read under
 * the lock), at most @limit, entries of @size bytes, and their number in
 * *@cap; NULL (unlocked) without memory.
 */
void *job_lock_with_room(struct job *job, const unsigned int *count,
			 unsigned int limit, size_t size, unsigned int *cap)
{
	void *buf;

	for (;;) {
		*cap = min(READ_ONCE(*count), limit);
		buf = kvmalloc_array(max(*cap, 1U), size, GFP_KERNEL);
		if (!buf)
			return NULL;
		raw_spin_lock_irq(&job->lock);
		if (min(*count, limit) <= *cap)
			return buf;
		raw_spin_unlock_irq(&job->lock);
		kvfree(buf);
	}
}

/* ---- membership ---------------------------------------------------------- */

/*
 * Adds the process of @task to @job's list as @m, counting @tasks tasks
 * run in it.  lock held; any context.  Inline: in the fork hook, a call
 * costs as much as the body.
 */
static __always_inline void job_member_add_locked(struct job *job,
						  struct job_member *m,
						  struct task_struct *task,
						  unsigned int tasks)
{
	lockdep_assert_held(&job->lock);
	m->tgid = get_pid(task_tgid(task));
	hlist_add_head(&m->link, &job->processes);
	job->nr_processes++;
	job->spent.nr_processes++;
	job->spent.nr_tasks += tasks;
	m->nr_joined = tasks;
	m->job = job;
	m->task = task;
}

/*
 * The end of a job: out of the table, with its final record kept in the
 * same section of job_table_lock, so that JOB_GETACCT finds the one or the
 * other; then waiters woken.
 */
void job_end(struct job *job)
{
	struct job_record *rec = NULL, *old = NULL;

	/* A job that no task ever joined (its create failed) never was. */
	if (job->spent.nr_tasks)
		rec = job_final_record(job);
	mutex_lock(&job_table_lock);
	hash_del(&job->table_node);
	job_count--;
	if (rec)
		old = job_keep_record_locked(rec);
	mutex_unlock(&job_table_lock);
	kfree(old);
	job_notify(job, JOB_EVENT_END, NULL);
	WRITE_ONCE(job->gone, true);
	wake_up_all(&job->ended_wq);
	job_put(job);
}

/*
 * Takes @m, leaving by its end (status) or detach, out of its job, what it
 * used added to job->spent already; returns whether that ended the job.
 * lock held; any context.
 */
static bool job_member_remove_locked(struct job *job, struct job_member *m,
				     int status)
{
	hlist_del(&m->link);
	job->nr_processes--;
	job->members_gone++;
	job->last_status = status;
	job->ended = !job->nr_processes && !job->attaching;
	return job->ended;
}

/* What a leave puts, where it may sleep; the last one ends the job. */
static void job_member_gone(struct job_member *m, bool ended)
{
	if (!m->left)
		put_pid(m->tgid);
	if (ended)
		job_end(m->job);
}

/*
 * @m leaves its job, by its end or detach, which ended its subscription
 * @sub: what it used, its status and the threads made in it since it
 * joined (pnotify.h) are the job's; the last one ends the job.
 */
static void job_member_leave(struct job_member *m,
			     const struct pnotify_subscriber *sub)
{
	struct job_sums used = { 0 };
	struct job *job = m->job;
	bool ended;

	job_sums_add_process(&used, m->task);
	job_sums_add_io(&used, pnotify_exit_io(sub));
	raw_spin_lock_irq(&job->lock);
	job_sums_fold(&job->spent, &used);
	job->spent.nr_tasks += pnotify_threads_made(sub);
	ended = job_member_remove_locked(job, m, pnotify_exit_status(sub));
	raw_spin_unlock_irq(&job->lock);
	job_member_gone(m, ended);
}

/*
 * @m, added for an attach whose establish then failed, was never a member:
 * it leaves no trace in the job's sums, counts or status.  The attach
 * keeps the job from ending meanwhile.
 */
static void job_member_unwind(struct job_member *m)
{
	struct job *job = m->job;

	raw_spin_lock_irq(&job->lock);
	hlist_del(&m->link);
	job->nr_processes--;
	job->members_gone++;
	job->spent.nr_processes--;
	job->spent.nr_tasks -= m->nr_joined;
	raw_spin_unlock_irq(&job->lock);
	put_pid(m->tgid);
}

/*
 * In the fork hook (atomic, see pnotify.h): the child process of a member
 * joins its job, with the signals it missed pending.  (A new thread is in
 * its process's job already.)
 */
static int job_inherit(struct task_struct *child,
		       struct pnotify_subscriber *sub,
		       struct pnotify_subscriber *parent_sub)
{
	struct job_member *parent = parent_sub->data, *m = sub->data;
	struct job *job = parent->job;
	u64 missed = 0;
	int ret = 0, sig;

	/* Under the fork hook's entry locks: interrupts are off. */
	pn_lock_irqs_off(&job->lock);
	if (job->detaching) {
		/* Forked while the job is being detached: not a member. */
		ret = PNOTIFY_SKIP;
	} else {
		job_member_add_locked(job, m, child, 1);
		/* Most forks meet no kill under way. */
		if (!list_empty(&job->kills))
			missed = job_missed_signals(job, child);
	}
	pn_unlock_irqs_off(&job->lock);
	for (sig = 1; missed; sig++, missed >>= 1)
		if (missed & 1)
			pnotify_inherit_signal(child, sig);
	return ret;
}

/*
 * In the exit hook (atomic, see pnotify.h) of @task, current, the thread
 * that ends its process, before exit_files(): past exit_mm(), what it used
 * is read without its mm, and added to its job's sums under its lock.  A
 * process whose other threads are all reaped (most have none) is
 * accounted here; the others in exit(), from the threads' sums, which
 * only process context can read.  The job's end waits for exit().
 */
static int job_leave(struct task_struct *task, struct pnotify_subscriber *sub)
{
	struct job_member *m = sub->data;
	struct job *job = m->job;

	if (!job_ended_alone())
		return PNOTIFY_CALL_EXIT;
	/* Interrupts are off in the exit hook. */
	pn_lock_irqs_off(&job->lock);
	job_sums_add_ended(&job->spent, sub);
	job->spent.nr_tasks += pnotify_threads_made(sub);
	m->ended = job_member_remove_locked(job, m, pnotify_exit_status(sub));
	pn_unlock_irqs_off(&job->lock);
	m->left = true;
	/*
	 * Not the last reference: the leader, whose pid the tgid is, is
	 * reaped after every other thread, this one included.  (put_pid()
	 * could free, which a hook may not.)
	 */
	refcount_dec(&m->tgid->count);
	return m->ended ? PNOTIFY_CALL_EXIT : 0;
}

/* The process's end (its threads all past their exit) or a detach. */
static void job_exit(struct task_struct *task, struct pnotify_subscriber *sub)
{
	struct job_member *m = sub->data;

	if (m->left)
		job_member_gone(m, m->ended);
	else
		job_member_leave(m, sub);
}

static void job_exec(struct task_struct *task, struct pnotify_subscriber *sub)
{
	struct job_exec_watcher *watcher;
	int idx = srcu_read_lock(&job_exec_srcu);

	watcher = srcu_dereference(job_exec_watcher, &job_exec_srcu);
	if (watcher)
		watcher->exec(task);
	srcu_read_unlock(&job_exec_srcu, idx);
}

struct pnotify_events job_events = {
	.module = THIS_MODULE,
	.name = "job",
	.data_size = sizeof(struct job_member),
	.inherit = job_inherit,
	.exec = job_exec,
	.exec_due = job_exec_never_due,
	.leave = job_leave,
	.exit = job_exit,
};

#ifdef PNOTIFY_TEST_DELAYS
static char test_hold_lookup_comm[TASK_COMM_LEN];
module_param_string(test_hold_lookup_comm, test_hold_lookup_comm,
		    sizeof(test_hold_lookup_comm), 0644);
MODULE_PARM_DESC(test_hold_lookup_comm,
		 "test only: a task of this name (in no job: its lookups sleep) holds the membership it looks up of another task for 2 s");

static void job_test_hold_lookup(struct task_struct *task)
{
	if (task != current && test_hold_lookup_comm[0] &&
	    !strncmp(current->comm, test_hold_lookup_comm, TASK_COMM_LEN))
		msleep(2000);
}
#else
static inline void job_test_hold_lookup(struct task_struct *task)
{
}
#endif

/* The job the process of @task is in, referenced, or NULL. */
struct job *job_of_process(struct task_struct *task)
{
	struct pnotify_subscriber *sub;
	struct job *job = NULL;

	sub = pnotify_get_subscriber(task, job_events.name);
	if (sub) {
		job = ((struct job_member *)sub->data)->job;
		refcount_inc(&job->ref);
		job_test_hold_lookup(task);
		pnotify_put_subscriber(sub);
	}
	return job;
}

/* Under the task's entry lock (atomic): a membership of the same job. */
static bool job_same_job(const struct pnotify_subscriber *old,
			 const struct pnotify_subscriber *new)
{
	const struct job_member *was = old->data, *is = new->data;

	return was->job == is->job;
}

/* User threads of @task's process that have not begun to exit. */
static unsigned int job_process_tasks(struct task_struct *task)
{
	unsigned int n = 0;
	struct task_struct *t;

	rcu_read_lock();
	for_each_thread(task, t)
		n += pn_task_is_user(t) && !(READ_ONCE(t->flags) & PF_EXITING);
	rcu_read_unlock();
	return n;
}

/* References a thread of each member process of @job into @tasks. */
unsigned int job_hold_members(struct job *job, struct task_struct **tasks)
{
	struct job_member *m;
	unsigned int n = 0;

	lockdep_assert_held(&job->lock);
	hlist_for_each_entry(m, &job->processes, link) {
		get_task_struct(m->task);
		tasks[n++] = m->task;
	}
	return n;
}

void job_put_tasks(struct task_struct **tasks, int n)
{
	while (n)
		put_task_struct(tasks[--n]);
	kvfree(tasks);
}

/* The user threads alive in @job's processes (JOB_GETINFO's nr_tasks). */
unsigned int job_live_tasks(struct job *job)
{
	struct task_struct **tasks;
	unsigned int n, i, cap, live = 0;

	tasks = job_lock_with_room(job, &job->nr_processes, UINT_MAX,
				   sizeof(*tasks), &cap);
	if (!tasks)
		return 0;
	n = job_hold_members(job, tasks);
	raw_spin_unlock_irq(&job->lock);
	for (i = 0; i < n; i++)
		live += job_process_tasks(tasks[i]);
	job_put_tasks(tasks, n);
	return live;
}

/*
 * Makes the process @leader a member of @job in place of its membership
 * of another job, in one step (a fork meanwhile is in the one or the
 * other).  Under job_move_lock, in an attach (job->attaching), so that
 * the job can neither end nor start detaching meanwhile.  Returns 0 or
 * < 0: -ESRCH for a process exiting or not a user one, -EEXIST for one in
 * @job already.
 */
static int job_join(struct job *job, struct task_struct *leader)
{
	struct pnotify_subscriber *sub;
	struct job_member *m;
	unsigned int tasks;
	struct job *in;
	int err;

	if (!pn_task_is_user(leader))
		return -ESRCH;
	in = job_of_process(leader);
	if (in)
		job_put(in);
	if (in == job)
		return -EEXIST;
	sub = pnotify_prepare(leader, &job_events, GFP_KERNEL);
	if (IS_ERR(sub))
		return PTR_ERR(sub);
	m = sub->data;
	tasks = job_process_tasks(leader);
	raw_spin_lock_irq(&job->lock);
	job_member_add_locked(job, m, leader, tasks);
	raw_spin_unlock_irq(&job->lock);
	err = pnotify_replace(sub, job_same_job);
	if (err) {
		job_member_unwind(m);
		pnotify_discard(sub);
		/* Exiting, it cannot fork any more: it leaves its old job now. */
		if (err == -ESRCH)
			pnotify_unsubscribe(leader, &job_events);
		return err;
	}
	job_notify(job, JOB_EVENT_JOIN, leader);
	return 0;
}

/*
 * Attaches the process @leader to @job (job_join()); without memory it
 * stays where it was.  If the job has no member after, it ends.  Returns
 * 0 or < 0.
 */
int job_attach_process(struct job *job, struct task_struct *leader)
{
	bool end;
	int err;

	lockdep_assert_held(&job_move_lock);
	raw_spin_lock_irq(&job->lock);
	err = job->ended || job->detaching ? -ENODATA : 0;
	job->attaching = !err;
	raw_spin_unlock_irq(&job->lock);
	if (err)
		return err;
	err = job_join(job, leader);
	raw_spin_lock_irq(&job->lock);
	job->attaching = false;
	end = !job->nr_processes && !job->ended;
	if (end)
		job->ended = true;
	raw_spin_unlock_irq(&job->lock);
	if (end)
		job_end(job);
	return err;
}

/* Detaches the process @leader from its job, if it is in one. */
void job_detach_process(struct task_struct *leader)
{
	pnotify_unsubscribe(leader, &job_events);
}

/*
 * Detaches @task's process from @job if it is still in it.  A process
 * that moved to another job stays on @job's list until the last holder of
 * its old membership (a job_of_process() elsewhere) puts it, and an
 * unsubscribe would take it out of the job it is in now.  Under
 * job_move_lock, so that it cannot move in between.
 */
void job_detach_member(struct job *job, struct task_struct *task)
{
	struct job *in = job_of_process(task);

	lockdep_assert_held(&job_move_lock);
	if (in == job)
		pnotify_unsubscribe(task, &job_events);
	if (in)
		job_put(in);
}

bool job_task_job(struct task_struct *task, u64 *jid, u64 *id, kuid_t *owner)
{
	struct job *job = job_of_process(task);

	if (!job)
		return false;
	*jid = job->jid;
	*id = job->id;
	*owner = job->owner;
	job_put(job);
	return true;
}
EXPORT_SYMBOL_GPL(job_task_job);

bool job_alive(u64 jid, u64 id)
{
	struct job *job;
	bool alive;

	mutex_lock(&job_table_lock);
	job = job_lookup_locked(jid);
	alive = job && job->id == id;
	mutex_unlock(&job_table_lock);
	return alive;
}
EXPORT_SYMBOL_GPL(job_alive);

/* The process (thread group leader) of a pid in the caller's namespace. */
struct task_struct *job_find_process(pid_t pid)
{
	struct task_struct *task = NULL;

	if (pid <= 0)
		return ERR_PTR(-ESRCH);
	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (task) {
		task = task->group_leader;
		get_task_struct(task);
	}
	rcu_read_unlock();
	return task ?: ERR_PTR(-ESRCH);
}

static int __init job_init(void)
{
	int err = pnotify_register(&job_events);

	if (err)
		return err;
	if (!proc_create("job", 0444, NULL, &job_proc_ops)) {
		pnotify_unregister(&job_events);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Unregistering ends every membership, hence every job, and so wakes the
 * waiters in JOB_WAITJID: only then can /proc/job's users drain.
 */
static void __exit job_exit_module(void)
{
	pnotify_unregister(&job_events);
	remove_proc_entry("job", NULL);
	job_free_records();
}

module_init(job_init);
module_exit(job_exit_module);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Job containers: inescapable process groups with SGI's job ABI");
