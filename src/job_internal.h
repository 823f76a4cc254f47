/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of job.ko share: job_core.c (jobs, the JID table,
 * membership, the pnotify subscriber), job_signal.c (kill and wait),
 * job_acct.c (accounting) and job_ioctl.c (the /proc/job ABI).  Locks: see
 * job_core.c.
 */
#ifndef _JOB_INTERNAL_H
#define _JOB_INTERNAL_H

#include <linux/capability.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/vtime.h>
#include <linux/wait.h>
#include <pnotify.h>
#include "wrapper/sched.h"

/* An ended job's final record (job_acct.c). */
struct job_record;

/*
 * CPU time is summed as the scheduler keeps it, and split into user and
 * system time only when reported (job_report()).
 */
struct job_sums {
	u64 runtime_ns;			/* precise */
	u64 user_ticks_ns, sys_ticks_ns;	/* sampled, for the split */
	u64 maxrss_kb, read_bytes, write_bytes;
	u64 nr_processes, nr_tasks;
};

/*
 * A killjid still sending, on its caller's stack and in its job's list, for
 * the children forked while it sends.
 */
struct job_kill {
	struct list_head link;
	int sig;
	u32 seq;		/* orders a stop against a SIGCONT */
	bool priv;		/* sent as the kernel: by a CAP_SYS_RESOURCE holder */
	kuid_t uid, euid;	/* the sender's, for kill(2)'s check otherwise */
	struct pid_namespace *ns;	/* the sender's: whom it can see */
};

struct job {
	u64 jid;
	u64 id;			/* no other job of this boot has it */
	kuid_t owner;
	struct pid *prime;
	u64 start_time_ns;
	struct hlist_node table_node;
	/* Its users' and, from job_insert() to job_end(), the table's. */
	refcount_t ref;

	raw_spinlock_t lock;
	/*
	 * Of struct job_member, the newest first.  An hlist: no out-of-line
	 * check (CONFIG_DEBUG_LIST) at each fork's add and exit's removal.
	 */
	struct hlist_head processes;
	unsigned int nr_processes;
	bool ended;	/* no member left: none may join */
	bool gone;	/* job_end() done: out of the table, its record kept */
	bool detaching;
	bool attaching;	/* an attach is under way: the job does not end */
	int last_status;
	struct job_sums spent;	/* used by tasks that left; counts of all */
	u32 members_gone;	/* members taken off processes, ever */
	/* See job_report(). */
	u64 reported_utime_ns, reported_stime_ns;
	u64 reported_read_bytes, reported_write_bytes;
	u32 kill_seq;
	struct list_head kills;	/* killjids still sending */
	struct mutex kill_lock;	/* one killjid sends at a time */
	wait_queue_head_t ended_wq;
};

/*
 * A member process, with all its threads: the data pnotify keeps with its
 * subscription, prepared before the fork that makes it.  Counting,
 * listing and signalling go by the tgid, not by a thread group leader,
 * which may exit (pthread_exit) long before the rest of its process.
 */
struct job_member {
	/* Unreferenced: alive while listed, and for the exit() that ends it. */
	struct job *job;
	struct hlist_node link;		/* on job->processes */
	struct pid *tgid;		/* stable for the life of the process */
	/* A thread of it (the subscription's task, held by pnotify). */
	struct task_struct *task;
	unsigned int nr_joined;		/* its tasks counted when it joined */
	/* Set by job_leave(), which dropped the tgid, for exit(). */
	bool left, ended;
};

#define JOB_TABLE_BITS 10

/* job_core.c */
extern unsigned int job_hid;
extern struct mutex job_table_lock;
extern struct mutex job_move_lock;
extern DECLARE_HASHTABLE(job_table, JOB_TABLE_BITS);
extern unsigned int job_count;
extern struct pnotify_events job_events;

void job_put(struct job *job);
struct job *job_get(u64 jid);
int job_insert(struct job *job, u64 requested);
void *job_lock_with_room(struct job *job, const unsigned int *count,
			 unsigned int limit, size_t size, unsigned int *cap);
void job_end(struct job *job);
int job_attach_process(struct job *job, struct task_struct *leader);
void job_detach_process(struct task_struct *leader);
void job_detach_member(struct job *job, struct task_struct *task);
struct job *job_of_process(struct task_struct *task);
struct task_struct *job_find_process(pid_t pid);
unsigned int job_hold_members(struct job *job, struct task_struct **tasks);
void job_put_tasks(struct task_struct **tasks, int n);
unsigned int job_live_tasks(struct job *job);

/* job_signal.c */
u64 job_missed_signals(struct job *job, struct task_struct *child);
long job_ioc_waitjid(void *arg);
long job_ioc_killjid(void *arg);

/* job_acct.c; what the exit hook calls inline, for its call's cost. */
void job_sums_add_process(struct job_sums *sums, struct task_struct *task);
void job_sums_add_vtime(struct job_sums *sums, struct task_struct *task);

static inline void job_sums_add_rss(struct job_sums *sums, unsigned long pages)
{
	sums->maxrss_kb = max_t(u64, sums->maxrss_kb,
				(u64)pages << (PAGE_SHIFT - 10));
}

/* Adds CPU time: @utime and @stime sampled, @runtime precise. */
static inline void job_sums_add_cputime(struct job_sums *sums, u64 utime,
					u64 stime, u64 runtime)
{
	sums->user_ticks_ns += utime;
	sums->sys_ticks_ns += stime;
	sums->runtime_ns += runtime;
}

/*
 * Adds a member's I/O, as pnotify counts it: signal->ioac would add the
 * children it waited for, members counted at their own end, once more.
 */
static inline void job_sums_add_io(struct job_sums *sums,
				   const struct pnotify_io *io)
{
	sums->read_bytes += io->rchar;
	sums->write_bytes += io->wchar;
}

/*
 * Adds what the threads of @sig reaped so far used, which __exit_signal()
 * sums there, and the largest RSS of its mm (do_exit() folds its hiwater
 * mark into signal->maxrss in the thread that ends the group, before
 * exit_mm(); exec_mmap() that of an mm an exec replaced).
 */
static inline void job_sums_add_reaped(struct job_sums *sums,
				       const struct signal_struct *sig)
{
	job_sums_add_cputime(sums, sig->utime, sig->stime,
			     sig->sum_sched_runtime);
	job_sums_add_rss(sums, sig->maxrss);
}

/*
 * Whether the exiting current, ending its process, is the last of its
 * threads not reaped, with what the others used summed in its
 * signal_struct: __exit_signal() sums a thread there, and decrements
 * nr_threads, in one write section of stats_lock.  The decrement seen,
 * that section has begun; the sequence then even, it is over, and no
 * other can begin, with no thread left to reap.  Else the process's use
 * is read in process context (job_sums_add_process()).
 */
static inline bool job_ended_alone(void)
{
	struct signal_struct *sig = current->signal;

	/* The sequence, and the sums, are read after the count. */
	if (smp_load_acquire(&sig->nr_threads) != 1)
		return false;
	return !(pn_read_seqbegin_nowait(&sig->stats_lock) & 1);
}

/*
 * Adds to @sums what the exiting current, ending its process alone
 * (job_ended_alone()), and the threads of its process reaped before it
 * used, past exit_mm(), and the I/O of its subscription @sub: in its exit
 * hook, preemption disabled.  Its CPU
 * time is read as the scheduler keeps it, as task_cputime_adjusted()
 * would read it, but without the split and the lock that come with it:
 * the job's is split once, when reported.  Where the task's time is kept
 * by virtual time accounting (a nohz_full CPU), only
 * task_cputime_adjusted() can read it, under the task's pi_lock, its
 * runqueue's lock and its prev_cputime lock (all raw, taken after the
 * job's by the caller).
 */
static inline void job_sums_add_ended(struct job_sums *sums,
				      const struct pnotify_subscriber *sub)
{
	struct task_struct *task = current;

	if (vtime_accounting_enabled_this_cpu())
		job_sums_add_vtime(sums, task);
	else
		job_sums_add_cputime(sums, task->utime, task->stime,
				     task->se.sum_exec_runtime);
	job_sums_add_io(sums, pnotify_exit_io(sub));
	job_sums_add_reaped(sums, task->signal);
}

/* Adds @more to @sums. */
static inline void job_sums_fold(struct job_sums *sums,
				 const struct job_sums *more)
{
	sums->user_ticks_ns += more->user_ticks_ns;
	sums->sys_ticks_ns += more->sys_ticks_ns;
	sums->runtime_ns += more->runtime_ns;
	sums->read_bytes += more->read_bytes;
	sums->write_bytes += more->write_bytes;
	sums->maxrss_kb = max(sums->maxrss_kb, more->maxrss_kb);
}

struct job_record *job_final_record(struct job *job);
struct job_record *job_keep_record_locked(struct job_record *rec);
void job_free_records(void);
long job_ioc_getacct(void *arg);
long job_ioc_readacct(void *arg);

/* job_ioctl.c */
extern const struct proc_ops job_proc_ops;

static inline bool job_privileged(void)
{
	return capable(CAP_SYS_RESOURCE);
}

#endif /* _JOB_INTERNAL_H */
