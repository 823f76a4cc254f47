// SPDX-License-Identifier: GPL-2.0
/*
 * job: accounting.  What a job's processes used, summed as they leave and
 * read from the live ones on request (JOB_GETACCT), and a final record of
 * each ended job, kept in a backlog of acct_backlog records for
 * JOB_READACCT (CSA) and JOB_GETACCT.
 */
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/cputime.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/vtime.h>
#include <uapi/job.h>
#include "job_internal.h"
#include "wrapper/sched.h"

static unsigned int acct_backlog = 1024;
module_param(acct_backlog, uint, 0444);
MODULE_PARM_DESC(acct_backlog, "final accounting records kept for ended jobs");

/* A final record of an ended job, kept for accounting (CSA). */
struct job_record {
	struct list_head link;
	struct job_acct acct;	/* ids as seen from the initial namespaces */
};

static LIST_HEAD(job_backlog);
static unsigned int job_backlog_len;

/*
 * Adds @task's CPU time as virtual time accounting keeps it (a nohz_full
 * CPU): apart, so that the common path of job_sums_add_ended() has no
 * address taken on its stack, and no stack canary to check.
 */
noinline void job_sums_add_vtime(struct job_sums *sums,
				struct task_struct *task)
{
	u64 utime, stime;

	task_cputime_adjusted(task, &utime, &stime);
	job_sums_add_cputime(sums, utime, stime, utime + stime);
}

/*
 * Adds what the process of @task has used to @sums, but its I/O: its live
 * threads and those reaped, read as thread_group_cputime() does (not
 * exported), and the RSS of its mm.  @task may have exited: its
 * signal_struct stays with it.  Process context.
 */
void job_sums_add_process(struct job_sums *sums, struct task_struct *task)
{
	struct signal_struct *sig = task->signal;
	struct mm_struct *mm = NULL;
	struct job_sums used;
	struct task_struct *t;
	unsigned int seq;
	u64 utime, stime;

	rcu_read_lock();
	do {
		seq = read_seqbegin(&sig->stats_lock);
		memset(&used, 0, sizeof(used));
		job_sums_add_reaped(&used, sig);
		__for_each_thread(sig, t) {
			task_cputime_adjusted(t, &utime, &stime);
			job_sums_add_cputime(&used, utime, stime,
					     utime + stime);
		}
	} while (read_seqretry(&sig->stats_lock, seq));
	__for_each_thread(sig, t) {
		mm = get_task_mm(t);
		if (mm)
			break;
	}
	rcu_read_unlock();
	if (mm) {
		job_sums_add_rss(&used, get_mm_hiwater_rss(mm));
		mmput(mm);
	}
	job_sums_fold(sums, &used);
}

/*
 * Reports in @acct the user and system time of @job, which used @sums:
 * their runtime, split in the proportion of their samples and, as
 * cputime_adjust() does for a process, never less than reported before.
 * (A member's exit adds its samples and runtime, which need not agree,
 * and live members move the proportion.)  And its bytes read and written,
 * never fewer than reported before: a read that could not be made exact
 * may miss a member's (job_read_acct()).
 */
static void job_report(struct job *job, const struct job_sums *sums,
		       struct job_acct *acct)
{
	u64 runtime = sums->runtime_ns, ut, st;

	if (!sums->sys_ticks_ns)
		st = 0;
	else if (!sums->user_ticks_ns)
		st = runtime;
	else
		st = mul_u64_u64_div_u64(sums->sys_ticks_ns, runtime,
					 sums->sys_ticks_ns +
					 sums->user_ticks_ns);
	raw_spin_lock_irq(&job->lock);
	if (job->reported_utime_ns + job->reported_stime_ns < runtime) {
		st = max(st, job->reported_stime_ns);
		ut = runtime - st;
		if (ut < job->reported_utime_ns) {
			ut = job->reported_utime_ns;
			st = runtime - ut;
		}
		job->reported_utime_ns = ut;
		job->reported_stime_ns = st;
	}
	acct->utime_ns = job->reported_utime_ns;
	acct->stime_ns = job->reported_stime_ns;
	job->reported_read_bytes = max(job->reported_read_bytes,
				       sums->read_bytes);
	job->reported_write_bytes = max(job->reported_write_bytes,
					sums->write_bytes);
	acct->read_bytes = job->reported_read_bytes;
	acct->write_bytes = job->reported_write_bytes;
	raw_spin_unlock_irq(&job->lock);
}

#ifdef PNOTIFY_TEST_DELAYS
static unsigned int test_delay_record_ms;
module_param(test_delay_record_ms, uint, 0644);
MODULE_PARM_DESC(test_delay_record_ms,
		 "test only: an ended job's final record is made this much later");

static unsigned int test_delay_read_ms;
module_param(test_delay_read_ms, uint, 0644);
MODULE_PARM_DESC(test_delay_read_ms,
		 "test only: a read of a job's accounting sleeps this much between holding its members and reading them");

/* msleep(0) still sleeps a jiffy on 6.1. */
static void job_test_sleep_ms(unsigned int ms)
{
	if (ms)
		msleep(ms);
}

#define job_test_delay(name) job_test_sleep_ms(READ_ONCE(test_delay_##name##_ms))
#else
#define job_test_delay(name) do { } while (0)
#endif

/* A member held for a read: its thread, referenced, and its identity. */
struct job_held {
	struct task_struct *task;
	const struct job_member *m;	/* compared, never read */
};

/* Reads of a job's accounting that may be retried for an exact one. */
#define JOB_ACCT_TRIES 4

/*
 * Adds to @sums what the @n members in @held used.  Returns false when
 * one's I/O could not be read: it was leaving, or joining, as it was held.
 */
static bool job_sums_add_held(struct job_sums *sums, struct job_held *held,
			      unsigned int n)
{
	bool all = true;

	while (n) {
		struct job_sums live = { 0 };
		struct pnotify_io io;

		job_sums_add_process(&live, held[--n].task);
		if (!pnotify_task_io(held[n].task, &job_events, held[n].m, &io))
			job_sums_add_io(&live, &io);
		else
			all = false;
		job_sums_fold(sums, &live);
		put_task_struct(held[n].task);
	}
	return all;
}

/*
 * A job's accounting so far: what its members used is read unlocked, from
 * the job's sums of those gone and the members then held.  A member that
 * leaves meanwhile adds to the sums too late for the read, and one held
 * as it leaves or joins (or whose threads keep exiting) has no I/O to
 * read: the read is made again, a little later, a few times at most.
 * Without memory for another, the last one stands.
 */
static int job_read_acct(struct job *job, struct job_acct *acct)
{
	unsigned int n, cap, gone, tries = 0;
	const struct job_member *m;
	struct job_held *held;
	struct job_sums sums;
	bool exact;

	memset(acct, 0, sizeof(*acct));
	do {
		if (tries)
			usleep_range(100, 200);
		held = job_lock_with_room(job, &job->nr_processes, UINT_MAX,
					  sizeof(*held), &cap);
		if (!held) {
			if (!tries)
				return -ENOMEM;
			break;
		}
		sums = job->spent;
		gone = job->members_gone;
		n = 0;
		hlist_for_each_entry(m, &job->processes, link) {
			get_task_struct(m->task);
			held[n].task = m->task;
			held[n++].m = m;
		}
		acct->exit_status = job->last_status;
		acct->ended = job->ended;
		raw_spin_unlock_irq(&job->lock);
		job_test_delay(read);
		exact = job_sums_add_held(&sums, held, n);
		kvfree(held);
		raw_spin_lock_irq(&job->lock);
		exact = exact && job->members_gone == gone;
		raw_spin_unlock_irq(&job->lock);
	} while (!exact && ++tries < JOB_ACCT_TRIES);
	acct->jid = job->jid;
	acct->start_time_ns = job->start_time_ns;
	job_report(job, &sums, acct);
	acct->maxrss_kb = sums.maxrss_kb;
	acct->nr_processes = sums.nr_processes;
	acct->nr_tasks = sums.nr_tasks;
	acct->uid = from_kuid_munged(current_user_ns(), job->owner);
	return 0;
}

/* The final record of an ended job; NULL without memory (it is lost). */
struct job_record *job_final_record(struct job *job)
{
	struct job_record *rec = kzalloc(sizeof(*rec), GFP_KERNEL);

	job_test_delay(record);

	if (!rec || job_read_acct(job, &rec->acct)) {
		kfree(rec);
		return NULL;
	}
	rec->acct.uid = from_kuid(&init_user_ns, job->owner);
	rec->acct.end_time_ns = ktime_get_real_ns();
	return rec;
}

/*
 * Keeps @rec in the backlog; job_table_lock held.  Returns the oldest
 * record, pushed out when the backlog is full, for the caller to free.
 */
struct job_record *job_keep_record_locked(struct job_record *rec)
{
	struct job_record *old = NULL;

	lockdep_assert_held(&job_table_lock);
	list_add_tail(&rec->link, &job_backlog);
	if (++job_backlog_len > acct_backlog) {
		old = list_first_entry(&job_backlog, struct job_record, link);
		list_del(&old->link);
		job_backlog_len--;
	}
	return old;
}

/* At unload: the records nobody took. */
void job_free_records(void)
{
	struct job_record *rec, *next;

	list_for_each_entry_safe(rec, next, &job_backlog, link)
		kfree(rec);
}

long job_ioc_getacct(void *arg)
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

long job_ioc_readacct(void *arg)
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
