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
 * The exec watchers: their due() is read in the exec hook, with preemption
 * disabled, their exec() from a member's exec work under job_exec_srcu.
 */
static LIST_HEAD(job_exec_watchers);
static DEFINE_MUTEX(job_exec_watchers_lock);
DEFINE_STATIC_SRCU(job_exec_srcu);

void job_register_exec_watcher(struct job_exec_watcher *watcher)
{
	mutex_lock(&job_exec_watchers_lock);
	list_add_tail_rcu(&watcher->link, &job_exec_watchers);
	mutex_unlock(&job_exec_watchers_lock);
}
EXPORT_SYMBOL_GPL(job_register_exec_watcher);

void job_unregister_exec_watcher(struct job_exec_watcher *watcher)
{
	mutex_lock(&job_exec_watchers_lock);
	list_del_rcu(&watcher->link);
	mutex_unlock(&job_exec_watchers_lock);
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

/* The job_process of @task's thread group in @job, or NULL; lock held. */
static struct job_process *job_process_find_locked(struct job *job,
						   struct task_struct *task)
{
	struct job_process *p;

	lockdep_assert_held(&job->lock);
	list_for_each_entry(p, &job->processes, link)
		if (p->signal == task->signal)
			return p;
	return NULL;
}

/*
 * Adds @task to @job's list as @m, in @process (NULL: a new process of the
 * job, held in m->own_process).  lock held; any context.
 */
static void job_member_add_locked(struct job *job, struct job_member *m,
				  struct task_struct *task,
				  struct job_process *process)
{
	lockdep_assert_held(&job->lock);
	if (!process) {
		process = &m->own_process;
		process->tgid = get_pid(task_tgid(task));
		process->signal = task->signal;
		INIT_LIST_HEAD(&process->members);
		list_add_tail(&process->link, &job->processes);
		job->nr_processes++;
		job->spent.nr_processes++;
	}
	list_add_tail(&m->process_link, &process->members);
	refcount_inc(&job->ref);
	m->job = job;
	m->process = process;
	m->task = task;
	job->nr_tasks++;
	job->spent.nr_tasks++;
}

/*
 * Takes @m out of its process, and the process out of @job with its last
 * member; returns the process's tgid to put once unlocked if it was the
 * last, else NULL.  lock held.
 */
static inline struct pid *job_process_leave_locked(struct job *job,
						   struct job_member *m)
{
	struct job_process *p = m->process, *heir;
	struct job_member *other;

	/* Its last member: the list goes with the process, @m's slot. */
	if (list_is_singular(&p->members)) {
		list_del(&p->link);
		job->nr_processes--;
		return p->tgid;
	}
	list_del(&m->process_link);
	if (p != &m->own_process)
		return NULL;
	/* The slot goes with @m's data: another member holds it from now. */
	other = list_first_entry(&p->members, struct job_member, process_link);
	heir = &other->own_process;
	heir->tgid = p->tgid;
	heir->signal = p->signal;
	list_replace(&p->link, &heir->link);
	list_replace(&p->members, &heir->members);
	list_for_each_entry(other, &heir->members, process_link)
		other->process = heir;
	return NULL;
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
}

/*
 * Takes @m, leaving by exit (status) or detach, out of its job, what it
 * used added to job->spent already; returns whether that ended the job,
 * and in @tgid the process's pid to put once unlocked if it was the
 * process's last member, else NULL.  lock held; any context.
 */
static bool job_member_remove_locked(struct job *job, struct job_member *m,
				     int status, struct pid **tgid)
{
	job->nr_tasks--;
	*tgid = job_process_leave_locked(job, m);
	job->last_status = status;
	job->ended = !job->nr_tasks && !job->attaching;
	return job->ended;
}

/* What a leave puts, where it may sleep; the last one ends the job. */
static void job_member_gone(struct job *job, struct pid *tgid, bool ended)
{
	put_pid(tgid);
	if (ended)
		job_end(job);
	job_put(job);
}

/* @m leaves its job, by exit (status) or detach; the last one ends it. */
static void job_member_leave(struct job_member *m, int status)
{
	struct job_sums used = { 0 };
	struct job *job = m->job;
	struct pid *tgid;
	bool ended;

	job_sums_add_task(&used, m->task);
	raw_spin_lock_irq(&job->lock);
	job_sums_fold(&job->spent, &used);
	ended = job_member_remove_locked(job, m, status, &tgid);
	raw_spin_unlock_irq(&job->lock);
	job_member_gone(job, tgid, ended);
}

/*
 * @m, added for an attach whose establish then failed, was never a member:
 * it leaves no trace in the job's sums, counts or status.  The attach
 * keeps the job from ending meanwhile.
 */
static void job_member_unwind(struct job_member *m, bool new_process)
{
	struct job *job = m->job;
	struct pid *tgid;

	raw_spin_lock_irq(&job->lock);
	job->nr_tasks--;
	job->spent.nr_tasks--;
	if (new_process && list_is_singular(&m->process->members))
		job->spent.nr_processes--;
	tgid = job_process_leave_locked(job, m);
	raw_spin_unlock_irq(&job->lock);
	put_pid(tgid);
	job_put(job);
}

/*
 * In the fork hook (atomic, see pnotify.h): the child of a member joins its
 * job, with the signals it missed pending.  A new thread shares its
 * process's signals and needs none.
 */
static int job_inherit(struct task_struct *child,
		       struct pnotify_subscriber *sub,
		       struct pnotify_subscriber *parent_sub)
{
	struct job_member *parent = parent_sub->data, *m = sub->data;
	struct job *job = parent->job;
	u64 missed = 0;
	int ret = 0, sig;
	bool thread;

	/* Interrupts are off in the fork hook. */
	raw_spin_lock(&job->lock);
	/* parent->process may move to another member's slot: read it locked. */
	thread = child->signal == parent->process->signal;
	if (job->detaching) {
		/* Forked while the job is being detached: not a member. */
		ret = PNOTIFY_SKIP;
	} else {
		job_member_add_locked(job, m, child,
				      thread ? parent->process : NULL);
		/* Most forks meet no kill under way. */
		if (!thread && !list_empty(&job->kills))
			missed = job_missed_signals(job, child);
	}
	raw_spin_unlock(&job->lock);
	for (sig = 1; missed; sig++, missed >>= 1)
		if (missed & 1)
			pnotify_inherit_signal(child, sig);
	return ret;
}

/*
 * In the exit hook (atomic, see pnotify.h), before exit_files(): past
 * exit_mm(), what the task used is read without its mm.  The references
 * it drops here are not the last: the tgid's, since the exiting task's
 * process keeps its pid until it is reaped, and the job's, since the job
 * has not ended.  Its end, and any put that would free, wait for exit().
 */
static int job_leave(struct task_struct *task, struct pnotify_subscriber *sub)
{
	struct job_member *m = sub->data;
	struct job *job = m->job;
	unsigned long flags;

	/* What it used is read as it is added: no copy to make and fold. */
	raw_spin_lock_irqsave(&job->lock, flags);
	job_sums_add_exited(&job->spent);
	m->ended = job_member_remove_locked(job, m, READ_ONCE(task->exit_code),
					    &m->left_tgid);
	raw_spin_unlock_irqrestore(&job->lock, flags);
	m->left = true;
	if (m->left_tgid && refcount_dec_not_one(&m->left_tgid->count))
		m->left_tgid = NULL;
	if (m->ended || m->left_tgid || !refcount_dec_not_one(&m->job->ref))
		return PNOTIFY_CALL_EXIT;
	return 0;
}

static void job_exit(struct task_struct *task, struct pnotify_subscriber *sub)
{
	struct job_member *m = sub->data;

	if (m->left)
		job_member_gone(m->job, m->left_tgid, m->ended);
	else
		job_member_leave(m, task->flags & PF_EXITING ?
				 READ_ONCE(task->exit_code) : 0);
}

/* In the exec hook (atomic, see pnotify.h): what the watchers say. */
static bool job_exec_due(struct task_struct *task,
			 struct pnotify_subscriber *sub)
{
	struct job_exec_watcher *watcher;

	list_for_each_entry_rcu(watcher, &job_exec_watchers, link,
				rcu_read_lock_any_held())
		if (watcher->due(task))
			return true;
	return false;
}

static void job_exec(struct task_struct *task, struct pnotify_subscriber *sub)
{
	struct job_exec_watcher *watcher;
	int idx = srcu_read_lock(&job_exec_srcu);

	list_for_each_entry_rcu(watcher, &job_exec_watchers, link,
				srcu_read_lock_held(&job_exec_srcu))
		watcher->exec(task);
	srcu_read_unlock(&job_exec_srcu, idx);
}

struct pnotify_events job_events = {
	.module = THIS_MODULE,
	.name = "job",
	.data_size = sizeof(struct job_member),
	.inherit = job_inherit,
	.exec = job_exec,
	.exec_due = job_exec_due,
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

/* The job @task is in, referenced, or NULL. */
static struct job *job_of_task(struct task_struct *task)
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

/*
 * Makes @task a member of @job with the subscription prepared for it, in
 * place of its membership of another job in one step (a fork meanwhile is
 * in the one or the other); consumes @sub.  Under job_move_lock, in an
 * attach (job->attaching), so that the job can neither end nor start
 * detaching meanwhile.
 */
static int job_attach_task(struct job *job, struct task_struct *task,
			   struct pnotify_subscriber *sub)
{
	struct job_member *m = sub->data;
	struct job_process *process;
	int err;

	raw_spin_lock_irq(&job->lock);
	process = job_process_find_locked(job, task);
	job_member_add_locked(job, m, task, process);
	raw_spin_unlock_irq(&job->lock);
	err = pnotify_replace(sub, job_same_job);
	if (err) {
		job_member_unwind(m, !process);
		pnotify_discard(sub);
		/* Exiting, it cannot fork any more: it leaves its old job now. */
		if (err == -ESRCH)
			pnotify_unsubscribe(task, &job_events);
		return err;
	}
	job_notify(job, JOB_EVENT_JOIN, task);
	return 0;
}

/*
 * How many passes a move makes at most: a process whose threads keep making
 * threads from threads not yet moved (each makes one and exits) could
 * outrun the passes for ever, holding job_move_lock.  Real programs need a
 * few.
 */
#define JOB_MOVE_PASSES_MAX	1000

/*
 * kvcalloc() that, when @wait, waits for memory, unless the caller is being
 * killed: on 5.10, kvmalloc() hands __GFP_NOFAIL to kmalloc() alone, which
 * warns for the larger sizes.
 */
static void *job_kvcalloc(size_t n, size_t size, bool wait)
{
	void *p;

	while (!(p = kvcalloc(n, size, GFP_KERNEL)) && wait &&
	       !fatal_signal_pending(current))
		schedule_timeout_killable(1);
	return p;
}

/*
 * References the threads of the process @leader into a new array; returns
 * their number or < 0.
 */
static int job_process_threads(struct task_struct *leader,
			       struct task_struct ***out, bool wait)
{
	struct task_struct *t, **tasks;
	int n = 0, cap = get_nr_threads(leader) + 8;

	tasks = job_kvcalloc(cap, sizeof(*tasks), wait);
	if (!tasks)
		return -ENOMEM;
	rcu_read_lock();
	for_each_thread(leader, t) {
		if (n == cap)
			break;
		get_task_struct(t);
		tasks[n++] = t;
	}
	rcu_read_unlock();
	*out = tasks;
	return n;
}

/* References each member task of @job into @tasks; returns how many. */
unsigned int job_hold_members(struct job *job, struct task_struct **tasks)
{
	struct job_process *p;
	struct job_member *m;
	unsigned int n = 0;

	lockdep_assert_held(&job->lock);
	list_for_each_entry(p, &job->processes, link)
		list_for_each_entry(m, &p->members, process_link) {
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

/*
 * Whether @task is to be moved to @job: a user thread in another job, or in
 * none unless it is exiting.  io_uring and other kernel workers are never
 * members; a thread that exits is left in its old job only until it
 * leaves, and the next pass would find it again and again.
 */
static bool job_to_move(struct job *job, struct task_struct *task)
{
	struct job *in;

	if (!pn_task_is_user(task))
		return false;
	in = job_of_task(task);
	if (in)
		job_put(in);
	return in ? in != job : !(READ_ONCE(task->flags) & PF_EXITING);
}

static void job_discard_subs(struct pnotify_subscriber **subs, int n)
{
	while (n--)
		if (subs[n])
			pnotify_discard(subs[n]);
	kvfree(subs);
}

/*
 * A subscription prepared for each of the @n @tasks that is to join @job
 * (NULL for the others), for all of them or for none; when @wait, memory
 * is waited for.
 */
static struct pnotify_subscriber **job_prepare_threads(struct job *job,
						       struct task_struct **tasks,
						       int n, bool wait)
{
	gfp_t gfp = wait ? GFP_KERNEL | __GFP_NOFAIL : GFP_KERNEL;
	struct pnotify_subscriber **subs, *sub;
	int i;

	subs = job_kvcalloc(max(n, 1), sizeof(*subs), wait);
	if (!subs)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++) {
		if (!job_to_move(job, tasks[i]))
			continue;
		sub = pnotify_prepare(tasks[i], &job_events, gfp);
		if (IS_ERR(sub)) {
			job_discard_subs(subs, n);
			return ERR_CAST(sub);
		}
		subs[i] = sub;
	}
	return subs;
}

/*
 * Attaches every thread of the process @leader to @job, again until a pass
 * finds none outside it: a thread created during a pass by a thread not yet
 * attached is seen by the next, and once every thread is in, new threads
 * inherit the job in the fork itself.  All or nothing: the first pass
 * prepares everything before it moves a thread, so that without memory it
 * moves nothing, and the later ones, which cannot undo it (the threads'
 * old job may have ended), wait for memory.  Only unload (-ENOENT), a
 * fatal signal of the caller (-EINTR) and a process that outruns
 * JOB_MOVE_PASSES_MAX passes (-EAGAIN) stop one midway, with every thread
 * in a job still.  (A later pass may also have to arm pnotify's hooks
 * again, and fail for memory, but only when nothing at all is followed:
 * every thread moved has exited, and the others are in no job.)  The job
 * cannot end or start detaching meanwhile
 * (job->attaching, job_move_lock held); if it has no member after, it
 * ends.  Returns 0 or < 0.
 */
int job_attach_process(struct job *job, struct task_struct *leader)
{
	int n, i, candidates, passes = 0, total = 0, err;
	struct pnotify_subscriber **subs;
	struct task_struct **tasks;
	bool later = false, end;

	lockdep_assert_held(&job_move_lock);
	raw_spin_lock_irq(&job->lock);
	err = job->ended || job->detaching ? -ENODATA : 0;
	job->attaching = !err;
	raw_spin_unlock_irq(&job->lock);
	if (err)
		return err;
	do {
		if (later && fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		if (++passes > JOB_MOVE_PASSES_MAX) {
			err = -EAGAIN;
			break;
		}
		n = job_process_threads(leader, &tasks, later);
		if (n < 0) {
			err = n;
			break;
		}
		subs = job_prepare_threads(job, tasks, n, later);
		if (IS_ERR(subs)) {
			err = PTR_ERR(subs);
			job_put_tasks(tasks, n);
			break;
		}
		candidates = 0;
		for (i = 0; i < n; i++) {
			struct pnotify_subscriber *sub = subs[i];

			if (!sub)
				continue;
			subs[i] = NULL;
			candidates++;
			if (err) {
				pnotify_discard(sub);
				continue;
			}
			err = job_attach_task(job, tasks[i], sub);
			/*
			 * Exiting, it has left its old job, and stays out;
			 * born meanwhile with its parent's job, it is in.
			 */
			if (err == -ESRCH || err == -EEXIST)
				err = 0;
			else if (!err)
				total++;
		}
		job_discard_subs(subs, n);
		job_put_tasks(tasks, n);
		later = true;
	} while (candidates && !err);
	raw_spin_lock_irq(&job->lock);
	job->attaching = false;
	end = !job->nr_tasks && !job->ended;
	if (end)
		job->ended = true;
	raw_spin_unlock_irq(&job->lock);
	if (end)
		job_end(job);
	return err ?: total ? 0 : -ESRCH;
}

/*
 * Detaches every thread of the process @leader from its job, again until a
 * pass finds none left in: a thread created meanwhile by a member inherits
 * the job.  Returns the threads detached or < 0 (-EAGAIN: outrun, see
 * JOB_MOVE_PASSES_MAX; the rest is still in).
 */
int job_detach_process(struct task_struct *leader)
{
	int n, i, detached, passes = 0, total = 0;
	struct task_struct **tasks;

	do {
		if (++passes > JOB_MOVE_PASSES_MAX)
			return -EAGAIN;
		n = job_process_threads(leader, &tasks, false);
		if (n < 0)
			return n;
		detached = 0;
		for (i = 0; i < n; i++)
			detached += !pnotify_unsubscribe(tasks[i], &job_events);
		job_put_tasks(tasks, n);
		total += detached;
	} while (detached);
	return total;
}

/*
 * Detaches @task from @job if it is still in it.  A task that moved to
 * another job stays on @job's lists until the last holder of its old
 * membership (a job_of_task() elsewhere) puts it, and an unsubscribe
 * would take it out of the job it is in now.  Under job_move_lock, so
 * that it cannot move in between.
 */
void job_detach_task(struct job *job, struct task_struct *task)
{
	struct job *in = job_of_task(task);

	lockdep_assert_held(&job_move_lock);
	if (in == job)
		pnotify_unsubscribe(task, &job_events);
	if (in)
		job_put(in);
}

/*
 * The job the process of @leader is in, referenced, or NULL: the leader's,
 * or, once the leader has exited before its threads, that of any of them.
 */
struct job *job_of_process(struct task_struct *leader)
{
	struct task_struct **tasks;
	struct job *job = job_of_task(leader);
	int n, i;

	if (job || !(READ_ONCE(leader->flags) & PF_EXITING))
		return job;
	n = job_process_threads(leader, &tasks, false);
	if (n < 0)
		return ERR_PTR(n);
	for (i = 0; i < n && !job; i++)
		job = job_of_task(tasks[i]);
	job_put_tasks(tasks, n);
	return job;
}

bool job_task_job(struct task_struct *task, u64 *jid, u64 *id, kuid_t *owner)
{
	struct job *job = job_of_task(task);

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
