// SPDX-License-Identifier: GPL-2.0
/*
 * job: accounting.  What a job's tasks used, summed as they leave and read
 * from the live ones on request (JOB_GETACCT), and a final record of each
 * ended job, kept in a backlog of acct_backlog records for JOB_READACCT
 * (CSA) and JOB_GETACCT.
 */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/cputime.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <uapi/job.h>
#include "job_internal.h"

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

static void job_sums_add_rss(struct job_sums *sums, unsigned long pages)
{
	sums->maxrss_kb = max_t(u64, sums->maxrss_kb,
				(u64)pages << (PAGE_SHIFT - 10));
}

/*
 * Adds what @task has used to @sums, but for the RSS of an mm it still
 * has: all of it for a task past exit_mm().  Any context: it takes only
 * raw locks.
 */
void job_sums_add_exited(struct job_sums *sums, struct task_struct *task)
{
	u64 utime, stime;

	task_cputime_adjusted(task, &utime, &stime);
	sums->utime_ns += utime;
	sums->stime_ns += stime;
#ifdef CONFIG_TASK_XACCT
	sums->read_bytes += task->ioac.rchar;
	sums->write_bytes += task->ioac.wchar;
#endif
	/* do_exit() folds the hiwater mark into signal->maxrss before exit_mm. */
	if (task->signal)
		job_sums_add_rss(sums, task->signal->maxrss);
}

/* Adds what @task has used to @sums; @task may be exiting or a zombie. */
void job_sums_add_task(struct job_sums *sums, struct task_struct *task)
{
	struct mm_struct *mm = get_task_mm(task);

	job_sums_add_exited(sums, task);
	if (mm) {
		job_sums_add_rss(sums, get_mm_hiwater_rss(mm));
		mmput(mm);
	}
}

void job_sums_fold(struct job_sums *sums, const struct job_sums *more)
{
	sums->utime_ns += more->utime_ns;
	sums->stime_ns += more->stime_ns;
	sums->read_bytes += more->read_bytes;
	sums->write_bytes += more->write_bytes;
	sums->maxrss_kb = max(sums->maxrss_kb, more->maxrss_kb);
}

/* A job's accounting so far: what its members used is read unlocked. */
static int job_read_acct(struct job *job, struct job_acct *acct)
{
	struct task_struct **tasks;
	struct job_sums sums;
	unsigned int n, cap;

	tasks = job_lock_with_room(job, &job->nr_tasks, UINT_MAX,
				   sizeof(*tasks), &cap);
	if (!tasks)
		return -ENOMEM;
	sums = job->spent;
	n = job_hold_members(job, tasks);
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
void job_keep_record(struct job *job)
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
