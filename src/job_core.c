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
 * Locks: job_move_lock (create, attach, detach), then job->lock (members,
 * processes, sums, kills: a raw spinlock taken with interrupts off, since
 * the fork hook takes it under siglock and tasklist_lock),
 * job_table_lock (the JID table, the backlog, the host id).  Nothing under
 * job->lock allocates, sleeps or signals: lists are copied out under it and
 * used after.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/sched/cputime.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <job_kernel.h>
#include <pnotify.h>
#include <uapi/job.h>
#include "wrapper/compat.h"
#include "wrapper/sched.h"

static unsigned int job_hid;
module_param_named(hid, job_hid, uint, 0444);
MODULE_PARM_DESC(hid, "host id, the upper 32 bits of new JIDs (0xffffffff disables job creation)");

static unsigned int acct_backlog = 1024;
module_param(acct_backlog, uint, 0444);
MODULE_PARM_DESC(acct_backlog, "final accounting records kept for ended jobs");

#define JOB_HID_DISABLED 0xffffffffU
/* The stop signals, as bits sig - 1 of a mask. */
#define JOB_STOP_BITS (BIT_ULL(SIGSTOP - 1) | BIT_ULL(SIGTSTP - 1) | \
		       BIT_ULL(SIGTTIN - 1) | BIT_ULL(SIGTTOU - 1))

struct job_sums {
	u64 utime_ns, stime_ns, maxrss_kb, read_bytes, write_bytes;
	u64 nr_processes, nr_tasks;
};

/* The last killjid of one signal, for the children forked during it. */
struct job_kill {
	u32 seq;		/* job->kill_seq when it was sent */
	unsigned int active;	/* killjids of this signal still sending */
	bool priv;		/* sent as the kernel: by a CAP_SYS_RESOURCE holder */
	kuid_t uid, euid;	/* the sender's, for kill(2)'s check otherwise */
};

struct job {
	u64 jid;
	u64 id;			/* no other job of this boot has it */
	kuid_t owner;
	struct pid *prime;
	u64 start_time_ns;
	struct hlist_node table_node;
	refcount_t ref;

	raw_spinlock_t lock;
	struct list_head members;
	struct list_head processes;
	unsigned int nr_tasks;
	unsigned int nr_processes;
	bool ended;
	bool detaching;
	int last_status;
	struct job_sums spent;	/* used by tasks that left; counts of all */
	u32 kill_seq;
	unsigned int kills_active;	/* killjids still sending */
	struct job_kill kills[_NSIG];
	wait_queue_head_t ended_wq;
};

/*
 * A process of a job: the thread group of its member tasks.  Counting,
 * listing and signalling go by these, not by thread group leaders, since a
 * leader may exit (pthread_exit) long before the rest of its process.
 */
struct job_process {
	struct list_head link;
	struct pid *tgid;	/* stable for the life of the thread group */
	struct signal_struct *signal;	/* identifies the group while it runs */
	struct list_head members;
};

/*
 * A member task: the data pnotify keeps with its subscription, prepared
 * before the fork that makes it.  The first member of a process holds the
 * job_process in own_process; when it leaves first, the role moves to
 * another member's slot.
 */
struct job_member {
	struct job *job;
	struct job_process *process;
	struct task_struct *task;
	struct list_head link;
	struct list_head process_link;
	struct job_process own_process;
	u32 fork_seq;		/* job->kill_seq at its last fork with no kill on */
};

/* A final record of an ended job, kept for accounting (CSA). */
struct job_record {
	struct list_head link;
	struct job_acct acct;	/* ids as seen from the initial namespaces */
};

static DEFINE_MUTEX(job_table_lock);
/* Serialises moving processes in and out of jobs (not forks). */
static DEFINE_MUTEX(job_move_lock);
static DEFINE_HASHTABLE(job_table, 10);
static unsigned int job_count;
static u32 job_counter;
static u64 job_last_id;
static LIST_HEAD(job_backlog);
static unsigned int job_backlog_len;

static struct pnotify_events job_events;
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

static void job_put(struct job *job)
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
static struct job *job_get(u64 jid)
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
static int job_insert(struct job *job, u64 requested)
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

/* ---- accounting ---------------------------------------------------------- */

/* Adds what @task has used to @sums; @task may be exiting or a zombie. */
static void job_sums_add_task(struct job_sums *sums, struct task_struct *task)
{
	struct mm_struct *mm;
	u64 utime, stime, rss = 0;

	task_cputime_adjusted(task, &utime, &stime);
	sums->utime_ns += utime;
	sums->stime_ns += stime;
#ifdef CONFIG_TASK_XACCT
	sums->read_bytes += task->ioac.rchar;
	sums->write_bytes += task->ioac.wchar;
#endif
	/* do_exit() folds the hiwater mark into signal->maxrss before exit_mm. */
	if (task->signal)
		rss = task->signal->maxrss;
	mm = get_task_mm(task);
	if (mm) {
		rss = max_t(u64, rss, get_mm_hiwater_rss(mm));
		mmput(mm);
	}
	sums->maxrss_kb = max_t(u64, sums->maxrss_kb, rss << (PAGE_SHIFT - 10));
}

static void job_sums_fold(struct job_sums *sums, const struct job_sums *more)
{
	sums->utime_ns += more->utime_ns;
	sums->stime_ns += more->stime_ns;
	sums->read_bytes += more->read_bytes;
	sums->write_bytes += more->write_bytes;
	sums->maxrss_kb = max(sums->maxrss_kb, more->maxrss_kb);
}

/*
 * Returns with job->lock held and a buffer of room for *@count (read under
 * the lock), at most @limit, entries of @size bytes, and their number in
 * *@cap; NULL (unlocked) without memory.
 */
static void *job_lock_with_room(struct job *job, const unsigned int *count,
				unsigned int limit, size_t size,
				unsigned int *cap)
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

/* A job's accounting so far: what its members used is read unlocked. */
static int job_read_acct(struct job *job, struct job_acct *acct)
{
	struct task_struct **tasks;
	struct job_sums sums;
	struct job_member *m;
	unsigned int n = 0, cap;

	tasks = job_lock_with_room(job, &job->nr_tasks, UINT_MAX,
				   sizeof(*tasks), &cap);
	if (!tasks)
		return -ENOMEM;
	sums = job->spent;
	list_for_each_entry(m, &job->members, link) {
		get_task_struct(m->task);
		tasks[n++] = m->task;
	}
	memset(acct, 0, sizeof(*acct));
	acct->exit_status = job->last_status;
	acct->ended = job->ended;
	raw_spin_unlock_irq(&job->lock);
	while (n) {
		struct job_sums live = { 0 };

		job_sums_add_task(&live, tasks[--n]);
		job_sums_fold(&sums, &live);
		put_task_struct(tasks[n]);
	}
	kvfree(tasks);
	acct->jid = job->jid;
	acct->start_time_ns = job->start_time_ns;
	acct->utime_ns = sums.utime_ns;
	acct->stime_ns = sums.stime_ns;
	acct->maxrss_kb = sums.maxrss_kb;
	acct->read_bytes = sums.read_bytes;
	acct->write_bytes = sums.write_bytes;
	acct->nr_processes = sums.nr_processes;
	acct->nr_tasks = sums.nr_tasks;
	acct->uid = from_kuid_munged(current_user_ns(), job->owner);
	return 0;
}

/* Keeps the final record of an ended job, dropping the oldest if full. */
static void job_keep_record(struct job *job)
{
	struct job_record *rec, *old = NULL;

	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	/* Without memory the record is lost; the job still ends. */
	if (!rec || job_read_acct(job, &rec->acct)) {
		kfree(rec);
		return;
	}
	rec->acct.uid = from_kuid(&init_user_ns, job->owner);
	rec->acct.end_time_ns = ktime_get_real_ns();

	mutex_lock(&job_table_lock);
	list_add_tail(&rec->link, &job_backlog);
	if (++job_backlog_len > acct_backlog) {
		old = list_first_entry(&job_backlog, struct job_record, link);
		list_del(&old->link);
		job_backlog_len--;
	}
	mutex_unlock(&job_table_lock);
	kfree(old);
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
	m->fork_seq = job->kill_seq;
	list_add_tail(&m->link, &job->members);
	job->nr_tasks++;
	job->spent.nr_tasks++;
}

/*
 * Takes @m out of its process; returns the process's tgid to put once
 * unlocked if it was the last, else NULL.  lock held.
 */
static struct pid *job_process_leave_locked(struct job *job,
					    struct job_member *m)
{
	struct job_process *p = m->process, *heir;
	struct job_member *other;

	list_del(&m->process_link);
	if (list_empty(&p->members)) {
		list_del(&p->link);
		job->nr_processes--;
		return p->tgid;
	}
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

/* The end of a job: out of the table, a final record, waiters woken. */
static void job_end(struct job *job)
{
	mutex_lock(&job_table_lock);
	hash_del(&job->table_node);
	job_count--;
	mutex_unlock(&job_table_lock);
	job_keep_record(job);
	job_notify(job, JOB_EVENT_END, NULL);
	wake_up_all(&job->ended_wq);
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
	list_del(&m->link);
	job->nr_tasks--;
	tgid = job_process_leave_locked(job, m);
	job->last_status = status;
	ended = !job->nr_tasks;
	job->ended = ended;
	raw_spin_unlock_irq(&job->lock);
	put_pid(tgid);
	if (ended)
		job_end(job);
	job_put(job);
}

static u64 job_sigset_bits(const sigset_t *set)
{
	u64 bits = set->sig[0];

#if _NSIG_WORDS > 1
	bits |= (u64)set->sig[1] << 32;
#endif
	return bits;
}

/* kill(2)'s rule, as @k's sender would have met it sending to @task. */
static bool job_kill_permitted(const struct job_kill *k,
			       struct task_struct *task)
{
	const struct cred *tcred;
	bool permitted;

	rcu_read_lock();
	tcred = __task_cred(task);
	permitted = k->priv || uid_eq(k->euid, tcred->suid) ||
		    uid_eq(k->euid, tcred->uid) ||
		    uid_eq(k->uid, tcred->suid) || uid_eq(k->uid, tcred->uid);
	rcu_read_unlock();
	return permitted;
}

/*
 * The job's signals that the new process @child missed: those of killjids
 * still sending, which took their list of processes before the child
 * joined, and those a killjid sent to the forking process since its last
 * fork that are still pending in it.  copy_process() gives up on any
 * unblocked signal pending before it copies the parent, so such a signal
 * came during this fork.  job->lock held, in the fork hook: current is the
 * forking task and holds its siglock.
 */
static u64 job_missed_signals(struct job *job, struct job_member *parent,
			      struct task_struct *child)
{
	u64 pending, missed = 0;
	int sig;

	lockdep_assert_held(&job->lock);
	if (parent->fork_seq == job->kill_seq && !job->kills_active)
		return 0;
	pending = job_sigset_bits(&current->pending.signal) |
		  job_sigset_bits(&current->signal->shared_pending.signal);
	for (sig = 1; sig < _NSIG; sig++) {
		const struct job_kill *k = &job->kills[sig];
		bool during = k->active ||
			      ((s32)(k->seq - parent->fork_seq) > 0 &&
			       (pending & BIT_ULL(sig - 1)));

		if (during && job_kill_permitted(k, child))
			missed |= BIT_ULL(sig - 1);
	}
	/* Of a stop and a SIGCONT, only the later one counts. */
	if ((missed & BIT_ULL(SIGCONT - 1)) && (missed & JOB_STOP_BITS)) {
		bool cont_last = true;

		for (sig = 1; sig < _NSIG; sig++)
			if ((JOB_STOP_BITS & BIT_ULL(sig - 1)) &&
			    (missed & BIT_ULL(sig - 1)) &&
			    (s32)(job->kills[sig].seq -
				  job->kills[SIGCONT].seq) > 0)
				cont_last = false;
		missed &= cont_last ? ~JOB_STOP_BITS : ~BIT_ULL(SIGCONT - 1);
	}
	return missed;
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
		if (!thread)
			missed = job_missed_signals(job, parent, child);
		/*
		 * A kill still sending may yet reach the parent in its next
		 * fork: that fork must still see it as new.
		 */
		if (!job->kills_active)
			parent->fork_seq = job->kill_seq;
	}
	raw_spin_unlock(&job->lock);
	for (sig = 1; missed; sig++, missed >>= 1)
		if (missed & 1)
			pnotify_inherit_signal(child, sig);
	return ret;
}

static void job_exit(struct task_struct *task, struct pnotify_subscriber *sub)
{
	job_member_leave(sub->data, task->flags & PF_EXITING ?
			 READ_ONCE(task->exit_code) : 0);
}

static struct pnotify_events job_events = {
	.module = THIS_MODULE,
	.name = "job",
	.data_size = sizeof(struct job_member),
	.inherit = job_inherit,
	.exit = job_exit,
};

/* The job @task is in, referenced, or NULL. */
static struct job *job_of_task(struct task_struct *task)
{
	struct pnotify_subscriber *sub;
	struct job *job = NULL;

	sub = pnotify_get_subscriber(task, job_events.name);
	if (sub) {
		job = ((struct job_member *)sub->data)->job;
		refcount_inc(&job->ref);
		pnotify_put_subscriber(sub);
	}
	return job;
}

/*
 * Makes @task a member of @job with the subscription prepared for it,
 * leaving any job it was in; consumes @sub.
 */
static int job_attach_task(struct job *job, struct task_struct *task,
			   struct pnotify_subscriber *sub)
{
	struct job_member *m = sub->data;
	bool gone;
	int err;

	pnotify_unsubscribe(task, &job_events);
	raw_spin_lock_irq(&job->lock);
	gone = job->ended || job->detaching;
	if (!gone)
		job_member_add_locked(job, m, task,
				      job_process_find_locked(job, task));
	raw_spin_unlock_irq(&job->lock);
	if (gone) {
		pnotify_discard(sub);
		return -ENODATA;
	}
	err = pnotify_establish(sub);
	if (err) {
		job_member_leave(m, 0);
		pnotify_discard(sub);
		/* Joined meanwhile by inheritance: it is in a job already. */
		return err == -EEXIST ? -EINVAL : err;
	}
	job_notify(job, JOB_EVENT_JOIN, task);
	return 0;
}
/*
 * References the threads of the process @leader into a new array; returns
 * their number or < 0.
 */
static int job_process_threads(struct task_struct *leader,
			       struct task_struct ***out)
{
	struct task_struct *t, **tasks;
	int n = 0, cap = get_nr_threads(leader) + 8;

	tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
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

static void job_put_tasks(struct task_struct **tasks, int n)
{
	while (n)
		put_task_struct(tasks[--n]);
	kvfree(tasks);
}

static bool job_has_task(struct job *job, struct task_struct *task)
{
	struct job *in = job_of_task(task);

	if (in)
		job_put(in);
	return in == job;
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
 * (NULL for the others): for all of them or, without memory, for none.
 */
static struct pnotify_subscriber **job_prepare_threads(struct job *job,
						       struct task_struct **tasks,
						       int n)
{
	struct pnotify_subscriber **subs;
	int i;

	subs = kvcalloc(max(n, 1), sizeof(*subs), GFP_KERNEL);
	for (i = 0; subs && i < n; i++) {
		/* io_uring and other kernel workers are never members. */
		if (!pn_task_is_user(tasks[i]) || job_has_task(job, tasks[i]))
			continue;
		subs[i] = pnotify_prepare(tasks[i], &job_events);
		if (IS_ERR(subs[i])) {
			subs[i] = NULL;
			job_discard_subs(subs, n);
			subs = NULL;
		}
	}
	return subs;
}

/*
 * Attaches every thread of the process @leader to @job, again until a pass
 * finds none outside it: a thread created during a pass by a thread not yet
 * attached is seen by the next, and once every thread is in, new threads
 * inherit the job in the fork itself.  Each pass prepares everything first,
 * so that without memory it moves nothing.  Returns 0 or < 0.
 */
static int job_attach_process(struct job *job, struct task_struct *leader)
{
	struct pnotify_subscriber **subs;
	int n, i, attached, total = 0, err = 0;
	struct task_struct **tasks;

	do {
		n = job_process_threads(leader, &tasks);
		if (n < 0)
			return n;
		subs = job_prepare_threads(job, tasks, n);
		if (!subs) {
			job_put_tasks(tasks, n);
			return -ENOMEM;
		}
		attached = 0;
		for (i = 0; i < n; i++) {
			struct pnotify_subscriber *sub = subs[i];

			subs[i] = NULL;
			if (!sub || err) {
				if (sub)
					pnotify_discard(sub);
				continue;
			}
			err = job_attach_task(job, tasks[i], sub);
			/* An exiting thread (a main thread gone first) stays out. */
			if (err == -ESRCH)
				err = 0;
			else if (!err)
				attached++;
		}
		job_discard_subs(subs, n);
		job_put_tasks(tasks, n);
		total += attached;
	} while (attached && !err);
	return err ?: total ? 0 : -ESRCH;
}

/*
 * Detaches every thread of the process @leader from its job, again until a
 * pass finds none left in: a thread created meanwhile by a member inherits
 * the job.  Returns the threads detached or < 0.
 */
static int job_detach_process(struct task_struct *leader)
{
	struct task_struct **tasks;
	int n, i, detached, total = 0;

	do {
		n = job_process_threads(leader, &tasks);
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
 * The job the process of @leader is in, referenced, or NULL: the leader's,
 * or, once the leader has exited before its threads, that of any of them.
 */
static struct job *job_of_process(struct task_struct *leader)
{
	struct task_struct **tasks;
	struct job *job = job_of_task(leader);
	int n, i;

	if (job || !(READ_ONCE(leader->flags) & PF_EXITING))
		return job;
	n = job_process_threads(leader, &tasks);
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
static struct task_struct *job_find_process(pid_t pid)
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

/* ---- requests ------------------------------------------------------------ */

/* Copies a list of @n entries to the user, frees it, reports @n in r_val. */
static long job_copy_list(void __user *dst, void *list, unsigned int n,
			  size_t size, int *r_val)
{
	long err = copy_to_user(dst, list, n * size) ? -EFAULT : 0;

	kvfree(list);
	*r_val = n;
	return err;
}

static bool job_privileged(void)
{
	return capable(CAP_SYS_RESOURCE);
}

static long job_create(void *arg)
{
	struct job_create *req = arg;
	struct job *job;
	kuid_t owner;
	int err;

	if (!job_privileged())
		return -EPERM;
	if (req->options)
		return -EINVAL;
	owner = make_kuid(current_user_ns(), req->user);
	if (!uid_valid(owner))
		return -EINVAL;
	if (READ_ONCE(job_hid) == JOB_HID_DISABLED) {
		req->r_jid = 0;
		return 0;
	}
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	refcount_set(&job->ref, 1);
	raw_spin_lock_init(&job->lock);
	INIT_LIST_HEAD(&job->members);
	INIT_LIST_HEAD(&job->processes);
	init_waitqueue_head(&job->ended_wq);
	job->owner = owner;
	job->prime = get_task_pid(current, PIDTYPE_TGID);
	job->start_time_ns = ktime_get_real_ns();
	err = job_insert(job, req->jid);
	if (err) {
		job_put(job);
		return err;
	}
	req->r_jid = job->jid;
	mutex_lock(&job_move_lock);
	err = job_attach_process(job, current->group_leader);
	mutex_unlock(&job_move_lock);
	/*
	 * A job is ended by its last member leaving; if no task ever joined
	 * (every attach failed before adding one), nothing else will end it.
	 */
	raw_spin_lock_irq(&job->lock);
	if (!job->nr_tasks && !job->ended) {
		job->ended = true;
		raw_spin_unlock_irq(&job->lock);
		job_end(job);
	} else {
		raw_spin_unlock_irq(&job->lock);
	}
	job_put(job);
	return err;
}

static long job_getjid(void *arg)
{
	struct job_getjid *req = arg;
	struct task_struct *task = job_find_process(req->pid);
	struct job *job;

	if (IS_ERR(task))
		return PTR_ERR(task);
	job = job_of_process(task);
	put_task_struct(task);
	if (IS_ERR_OR_NULL(job))
		return job ? PTR_ERR(job) : -ENODATA;
	req->r_jid = job->jid;
	job_put(job);
	return 0;
}

static long job_waitjid(void *arg)
{
	struct job_waitjid *req = arg;
	struct job *job;
	int err;

	if (req->options)
		return -EINVAL;
	job = job_get(req->jid);
	if (!job)
		return -ENODATA;
	err = wait_event_interruptible(job->ended_wq, READ_ONCE(job->ended));
	if (!err) {
		req->r_jid = job->jid;
		req->stat = job->last_status;
	}
	job_put(job);
	return err;
}

static bool job_is_owner(struct job *job)
{
	return uid_eq(current_euid(), job->owner) ||
	       uid_eq(current_uid(), job->owner);
}

/* True while @tgid is a process of @job. */
static bool job_lists_process(struct job *job, struct pid *tgid)
{
	struct job_process *p;
	bool listed = false;

	raw_spin_lock_irq(&job->lock);
	list_for_each_entry(p, &job->processes, link)
		listed |= p->tgid == tgid;
	raw_spin_unlock_irq(&job->lock);
	return listed;
}

/*
 * kill_pid() for a process of @job.  A child joins in the fork hook just
 * before its pid is attached: until then it cannot be found (-ESRCH), and
 * only an instant separates the two, so wait for it.
 */
static int job_kill_process(struct job *job, struct pid *tgid, int sig,
			    bool priv)
{
	int err, tries;

	for (tries = 0; tries < 1000; tries++) {
		err = kill_pid(tgid, sig, priv);
		if (err != -ESRCH || !job_lists_process(job, tgid))
			break;
		cond_resched();
		if (tries >= 100)
			usleep_range(100, 200);
	}
	return err;
}

/*
 * Signals every process of the job once.  Children forked meanwhile miss
 * the list taken here, and get the signal from the fork hook instead (see
 * job_missed_signals()): even a non-fatal signal cannot be escaped by
 * forking.
 *
 * A CAP_SYS_RESOURCE holder signals as the kernel.  The owner signals with
 * kill(2)'s permission checks: processes running as another user (a root
 * process started by su or sudo inside the job) are left alone, and r_val
 * counts the processes signalled; EPERM when there were some and none of
 * them could be.
 */
static long job_killjid(void *arg)
{
	struct job_killjid *req = arg;
	int signalled = 0, refused = 0;
	unsigned int n = 0, cap, i;
	struct job_kill *k = NULL;
	struct job_process *p;
	struct pid **tgids;
	struct job *job;
	bool priv;

	if (req->sig < 0 || req->sig >= _NSIG)
		return -EINVAL;
	job = job_get(req->jid);
	if (!job)
		return -ENODATA;
	priv = job_privileged();
	if (!priv && !job_is_owner(job)) {
		job_put(job);
		return -EPERM;
	}
	tgids = job_lock_with_room(job, &job->nr_processes, UINT_MAX,
				   sizeof(*tgids), &cap);
	if (!tgids) {
		job_put(job);
		return -ENOMEM;
	}
	list_for_each_entry(p, &job->processes, link)
		tgids[n++] = get_pid(p->tgid);
	if (req->sig) {
		k = &job->kills[req->sig];
		k->seq = ++job->kill_seq;
		k->active++;
		job->kills_active++;
		k->priv = priv;
		k->uid = current_uid();
		k->euid = current_euid();
	}
	raw_spin_unlock_irq(&job->lock);
	for (i = 0; i < n; i++) {
		int err = job_kill_process(job, tgids[i], req->sig, priv);

		if (!err)
			signalled++;
		else if (err == -EPERM)
			refused++;
		put_pid(tgids[i]);
	}
	kvfree(tgids);
	if (k) {
		raw_spin_lock_irq(&job->lock);
		k->active--;
		job->kills_active--;
		raw_spin_unlock_irq(&job->lock);
	}
	job_put(job);
	if (refused && !signalled)
		return -EPERM;
	req->r_val = signalled;
	return 0;
}

static long job_getjidcnt(void *arg)
{
	struct job_jidcnt *req = arg;

	mutex_lock(&job_table_lock);
	req->r_val = job_count;
	mutex_unlock(&job_table_lock);
	return 0;
}

static long job_getjidlst(void *arg)
{
	struct job_jidlst *req = arg;
	unsigned int bkt, n = 0, cap;
	struct job *job;
	u64 *jids;

	if (req->r_val < 0)
		return -EINVAL;
	mutex_lock(&job_table_lock);
	cap = min_t(unsigned int, req->r_val, job_count);
	jids = kvmalloc_array(max(cap, 1U), sizeof(*jids), GFP_KERNEL);
	if (jids) {
		hash_for_each(job_table, bkt, job, table_node) {
			if (n == cap)
				break;
			jids[n++] = job->jid;
		}
	}
	mutex_unlock(&job_table_lock);
	if (!jids)
		return -ENOMEM;
	return job_copy_list((void __user *)req->jid, jids, n, sizeof(*jids),
			     &req->r_val);
}

static long job_getpidcnt(void *arg)
{
	struct job_pidcnt *req = arg;
	struct job *job = job_get(req->jid);

	if (!job)
		return -ENODATA;
	req->r_val = READ_ONCE(job->nr_processes);
	job_put(job);
	return 0;
}

static long job_getpidlst(void *arg)
{
	struct job_pidlst *req = arg;
	struct pid_namespace *ns = task_active_pid_ns(current);
	unsigned int n = 0, cap;
	struct job_process *p;
	struct job *job;
	pid_t *pids;

	if (req->r_val < 0)
		return -EINVAL;
	job = job_get(req->jid);
	if (!job)
		return -ENODATA;
	pids = job_lock_with_room(job, &job->nr_processes, req->r_val,
				  sizeof(*pids), &cap);
	if (!pids) {
		job_put(job);
		return -ENOMEM;
	}
	list_for_each_entry(p, &job->processes, link) {
		/* Processes outside the caller's pid namespace: none. */
		pid_t pid = pid_nr_ns(p->tgid, ns);

		if (n == cap)
			break;
		if (pid)
			pids[n++] = pid;
	}
	raw_spin_unlock_irq(&job->lock);
	job_put(job);
	return job_copy_list((void __user *)req->pid, pids, n, sizeof(*pids),
			     &req->r_val);
}

static long job_getuser(void *arg)
{
	struct job_user *req = arg;
	struct job *job = job_get(req->jid);

	if (!job)
		return -ENODATA;
	req->r_user = from_kuid_munged(current_user_ns(), job->owner);
	job_put(job);
	return 0;
}

static long job_getprimepid(void *arg)
{
	struct job_primepid *req = arg;
	struct job *job = job_get(req->jid);
	long err = 0;

	if (!job)
		return -ENODATA;
	raw_spin_lock_irq(&job->lock);
	if (job->nr_processes)
		req->r_pid = pid_vnr(job->prime);
	else
		err = -ESRCH;
	raw_spin_unlock_irq(&job->lock);
	job_put(job);
	return err;
}

static long job_sethid(void *arg)
{
	struct job_sethid *req = arg;

	if (!job_privileged())
		return -EPERM;
	if (req->hid > U32_MAX)
		return -EINVAL;
	mutex_lock(&job_table_lock);
	req->r_hid = job_hid;
	WRITE_ONCE(job_hid, req->hid);
	mutex_unlock(&job_table_lock);
	return 0;
}

static long job_detachjid(void *arg)
{
	struct job_detachjid *req = arg;
	struct task_struct **tasks;
	unsigned int n = 0, cap, i;
	struct job_member *m;
	struct job *job;
	int processes;

	if (!job_privileged())
		return -EPERM;
	job = job_get(req->jid);
	if (!job)
		return -ENODATA;
	/* No attach may slip in while the members are taken out. */
	mutex_lock(&job_move_lock);
	tasks = job_lock_with_room(job, &job->nr_tasks, UINT_MAX,
				   sizeof(*tasks), &cap);
	if (!tasks) {
		mutex_unlock(&job_move_lock);
		job_put(job);
		return -ENOMEM;
	}
	/* From here on no fork joins; detaching stays set for good. */
	job->detaching = true;
	/* Those that exit meanwhile leave by themselves. */
	processes = job->nr_processes;
	list_for_each_entry(m, &job->members, link) {
		get_task_struct(m->task);
		tasks[n++] = m->task;
	}
	raw_spin_unlock_irq(&job->lock);
	for (i = 0; i < n; i++)
		pnotify_unsubscribe(tasks[i], &job_events);
	mutex_unlock(&job_move_lock);
	job_put_tasks(tasks, n);
	job_put(job);
	req->r_val = processes;
	return 0;
}

static long job_detachpid(void *arg)
{
	struct job_detachpid *req = arg;
	struct task_struct *task;
	struct job *job;
	int err;

	if (!job_privileged())
		return -EPERM;
	task = job_find_process(req->pid);
	if (IS_ERR(task))
		return PTR_ERR(task);
	job = job_of_process(task);
	if (IS_ERR_OR_NULL(job)) {
		put_task_struct(task);
		return job ? PTR_ERR(job) : -ENODATA;
	}
	req->r_jid = job->jid;
	job_put(job);
	mutex_lock(&job_move_lock);
	err = job_detach_process(task);
	mutex_unlock(&job_move_lock);
	put_task_struct(task);
	return err < 0 ? err : 0;
}

static long job_attachpid(void *arg)
{
	struct job_attachpid *req = arg;
	struct task_struct *task;
	struct job *job, *current_job;
	int err;

	if (!job_privileged())
		return -EPERM;
	task = job_find_process(req->pid);
	if (IS_ERR(task))
		return PTR_ERR(task);
	mutex_lock(&job_move_lock);
	current_job = job_of_process(task);
	job = current_job ? NULL : job_get(req->r_jid);
	if (IS_ERR(current_job))
		err = PTR_ERR(current_job);
	else if (current_job)
		err = -EINVAL;
	else if (!job)
		err = -ENODATA;
	else
		err = job_attach_process(job, task);
	mutex_unlock(&job_move_lock);
	if (!IS_ERR_OR_NULL(current_job))
		job_put(current_job);
	if (job)
		job_put(job);
	put_task_struct(task);
	return err;
}

static long job_getinfo(void *arg)
{
	struct job_info *req = arg;
	struct job *job = job_get(req->jid);

	if (!job)
		return -ENODATA;
	raw_spin_lock_irq(&job->lock);
	req->start_time_ns = job->start_time_ns;
	req->uid = from_kuid_munged(current_user_ns(), job->owner);
	req->prime_pid = job->nr_processes ? pid_vnr(job->prime) : 0;
	req->nr_processes = job->nr_processes;
	req->nr_tasks = job->nr_tasks;
	raw_spin_unlock_irq(&job->lock);
	job_put(job);
	return 0;
}

int job_get_info(struct job_info *info)
{
	return job_getinfo(info);
}
EXPORT_SYMBOL_GPL(job_get_info);

static long job_getacct(void *arg)
{
	struct job_acct *req = arg;
	struct job_record *rec;
	struct job *job = job_get(req->jid);

	if (job) {
		long err = job_read_acct(job, req);

		job_put(job);
		return err;
	}
	mutex_lock(&job_table_lock);
	list_for_each_entry_reverse(rec, &job_backlog, link) {
		if (rec->acct.jid == req->jid) {
			*req = rec->acct;
			req->uid = from_kuid_munged(current_user_ns(),
						    make_kuid(&init_user_ns,
							      rec->acct.uid));
			mutex_unlock(&job_table_lock);
			return 0;
		}
	}
	mutex_unlock(&job_table_lock);
	return -ENODATA;
}

static long job_readacct(void *arg)
{
	struct job_acct *req = arg;
	struct job_record *rec;

	if (!job_privileged())
		return -EPERM;
	mutex_lock(&job_table_lock);
	rec = list_first_entry_or_null(&job_backlog, struct job_record, link);
	if (rec) {
		list_del(&rec->link);
		job_backlog_len--;
	}
	mutex_unlock(&job_table_lock);
	if (!rec)
		return -ENODATA;
	*req = rec->acct;
	req->uid = from_kuid_munged(current_user_ns(),
				    make_kuid(&init_user_ns, rec->acct.uid));
	kfree(rec);
	return 0;
}

/* ---- the ioctl entry ------------------------------------------------------ */

/*
 * One field of a request.  A 32-bit caller lays the same fields out with
 * 4-byte pointers and longs ("word" fields) and, on x86, 4-byte aligned u64:
 * job_convert() derives that layout from this list.
 */
struct job_field {
	unsigned short offset, size;
	bool word;
};

struct job_op {
	long (*handler)(void *arg);
	size_t size;
	const struct job_field *fields;	/* NULL: same layout for 32 bits */
	unsigned int nr_fields;
};

#define JOB_F(s, f) { offsetof(struct s, f), sizeof_field(struct s, f), false }
#define JOB_W(s, f) { offsetof(struct s, f), sizeof_field(struct s, f), true }
#define JOB_FIELDS(s, ...) \
	static const struct job_field s##_fields[] = { __VA_ARGS__ }

JOB_FIELDS(job_create, JOB_F(job_create, r_jid), JOB_F(job_create, jid),
	   JOB_F(job_create, user), JOB_F(job_create, options));
JOB_FIELDS(job_getjid, JOB_F(job_getjid, r_jid), JOB_F(job_getjid, pid));
JOB_FIELDS(job_waitjid, JOB_F(job_waitjid, r_jid), JOB_F(job_waitjid, jid),
	   JOB_F(job_waitjid, stat), JOB_F(job_waitjid, options));
JOB_FIELDS(job_killjid, JOB_F(job_killjid, r_val), JOB_F(job_killjid, jid),
	   JOB_F(job_killjid, sig));
JOB_FIELDS(job_jidcnt, JOB_F(job_jidcnt, r_val));
JOB_FIELDS(job_jidlst, JOB_F(job_jidlst, r_val), JOB_W(job_jidlst, jid));
JOB_FIELDS(job_pidcnt, JOB_F(job_pidcnt, r_val), JOB_F(job_pidcnt, jid));
JOB_FIELDS(job_pidlst, JOB_F(job_pidlst, r_val), JOB_W(job_pidlst, pid),
	   JOB_F(job_pidlst, jid));
JOB_FIELDS(job_user, JOB_F(job_user, r_user), JOB_F(job_user, jid));
JOB_FIELDS(job_primepid, JOB_F(job_primepid, r_pid),
	   JOB_F(job_primepid, jid));
JOB_FIELDS(job_sethid, JOB_W(job_sethid, r_hid), JOB_W(job_sethid, hid));
JOB_FIELDS(job_detachjid, JOB_F(job_detachjid, r_val),
	   JOB_F(job_detachjid, jid));
JOB_FIELDS(job_detachpid, JOB_F(job_detachpid, r_jid),
	   JOB_F(job_detachpid, pid));
JOB_FIELDS(job_attachpid, JOB_F(job_attachpid, r_jid),
	   JOB_F(job_attachpid, pid));

#define JOB_OP(nr, fn, s) \
	[nr] = { fn, sizeof(struct s), s##_fields, ARRAY_SIZE(s##_fields) }
#define JOB_OP_FIXED(nr, fn, s) \
	[nr] = { fn, sizeof(struct s) }

static const struct job_op job_ops[] = {
	JOB_OP(JOB_CREATE, job_create, job_create),
	JOB_OP(JOB_GETJID, job_getjid, job_getjid),
	JOB_OP(JOB_WAITJID, job_waitjid, job_waitjid),
	JOB_OP(JOB_KILLJID, job_killjid, job_killjid),
	JOB_OP(JOB_GETJIDCNT, job_getjidcnt, job_jidcnt),
	JOB_OP(JOB_GETJIDLST, job_getjidlst, job_jidlst),
	JOB_OP(JOB_GETPIDCNT, job_getpidcnt, job_pidcnt),
	JOB_OP(JOB_GETPIDLST, job_getpidlst, job_pidlst),
	JOB_OP(JOB_GETUSER, job_getuser, job_user),
	JOB_OP(JOB_GETPRIMEPID, job_getprimepid, job_primepid),
	JOB_OP(JOB_SETHID, job_sethid, job_sethid),
	JOB_OP(JOB_DETACHJID, job_detachjid, job_detachjid),
	JOB_OP(JOB_DETACHPID, job_detachpid, job_detachpid),
	JOB_OP(JOB_ATTACHPID, job_attachpid, job_attachpid),
	JOB_OP_FIXED(JOB_GETINFO, job_getinfo, job_info),
	JOB_OP_FIXED(JOB_GETACCT, job_getacct, job_acct),
	JOB_OP_FIXED(JOB_READACCT, job_readacct, job_acct),
};

union job_args {
	struct job_create create;
	struct job_getjid getjid;
	struct job_waitjid waitjid;
	struct job_killjid killjid;
	struct job_jidlst jidlst;
	struct job_pidlst pidlst;
	struct job_sethid sethid;
	struct job_info info;
	struct job_acct acct;
};

/*
 * Moves a request between its 32-bit layout in @compat and the native one;
 * returns the 32-bit size.  Words are widened with zero extension (a
 * compat_uptr_t is a zero-extended address) and narrowed by truncation.
 */
static size_t job_convert(const struct job_op *op, void *native, void *compat,
			  bool to_native)
{
	size_t off = 0, size, u64_align = pn_compat_u64_align();
	unsigned int i;

	for (i = 0; i < op->nr_fields; i++) {
		const struct job_field *f = &op->fields[i];
		void *n = native + f->offset;

		size = f->word ? 4 : f->size;
		off = ALIGN(off, min(size, u64_align));
		if (native && to_native) {
			memset(n, 0, f->size);
			memcpy(n, compat + off, size);
		} else if (native) {
			memcpy(compat + off, n, size);
		}
		off += size;
	}
	return ALIGN(off, 4);
}

static long job_ioctl_common(unsigned int cmd, void __user *uarg, bool compat)
{
	u8 compat_buf[sizeof(union job_args)];
	union job_args args;
	const struct job_op *op;
	unsigned int nr = _IOC_NR(cmd);
	size_t usize;
	long err;

	if (_IOC_TYPE(cmd) != JOB_IOCTL_TYPE || nr >= ARRAY_SIZE(job_ops) ||
	    !job_ops[nr].handler || _IOC_SIZE(cmd) != (compat ? 4 : sizeof(void *)))
		return -EBADRQC;
	if (!uarg)
		return -EINVAL;
	op = &job_ops[nr];
	compat = compat && op->fields;
	usize = compat ? job_convert(op, NULL, NULL, false) : op->size;
	memset(&args, 0, sizeof(args));
	if (copy_from_user(compat ? (void *)compat_buf : (void *)&args, uarg,
			   usize))
		return -EFAULT;
	if (compat)
		job_convert(op, &args, compat_buf, true);
	err = op->handler(&args);
	if (err)
		return err;
	if (compat)
		job_convert(op, &args, compat_buf, false);
	if (copy_to_user(uarg, compat ? (void *)compat_buf : (void *)&args,
			 usize))
		return -EFAULT;
	return 0;
}

static long job_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return job_ioctl_common(cmd, (void __user *)arg, false);
}

#ifdef CONFIG_COMPAT
static long job_compat_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	return job_ioctl_common(cmd, compat_ptr(arg), true);
}
#endif

static const struct proc_ops job_proc_ops = {
	.proc_ioctl = job_ioctl,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl = job_compat_ioctl,
#endif
};

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
	struct job_record *rec, *next;

	pnotify_unregister(&job_events);
	remove_proc_entry("job", NULL);
	list_for_each_entry_safe(rec, next, &job_backlog, link)
		kfree(rec);
}

module_init(job_init);
module_exit(job_exit_module);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Job containers: inescapable process groups with SGI's job ABI");
