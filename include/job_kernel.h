/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What job.ko offers other kernel modules: which job a task is in, and
 * notice of the processes that join a job by create or attach (a fork's
 * children join by inheritance, through pnotify), of jobs that end and of
 * the execs of every member.
 */
#ifndef _JOB_KERNEL_H
#define _JOB_KERNEL_H

#include <linux/notifier.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct task_struct;
struct pnotify_subscriber;
struct job_info;

enum job_event_type {
	JOB_EVENT_JOIN,		/* event->task joined, by create or attach */
	JOB_EVENT_END,		/* the job's last task left */
};

struct job_event {
	u64 jid;
	u64 id;		/* unique to this job: a JID is reused once it ends */
	kuid_t owner;
	struct task_struct *task;	/* JOB_EVENT_JOIN only */
};

/*
 * Notifiers run in process context and may sleep; they get a struct
 * job_event.  Every job still alive when job.ko unloads ends with a
 * JOB_EVENT_END before that.
 */
int job_register_notifier(struct notifier_block *nb);
int job_unregister_notifier(struct notifier_block *nb);

/*
 * Sees the execs of every member of every job, without a pnotify
 * subscription of its own per member.  due() is job's pnotify exec_due()
 * while registered (@sub is the member's job subscription, private to
 * job.ko): it runs in the exec hook, in the exec'ing member (current, with
 * its new credentials), atomic, raw spinlocks only, no allocation.  It says
 * whether this exec needs exec(), which then runs in the member before the
 * new image does, where it may sleep; exec() also runs when another of the
 * member's subscriptions asked for it, and decides again.  There is one
 * watcher at a time (-EBUSY); unregistering waits for every call in flight,
 * and does nothing to a watcher not registered.
 */
struct job_exec_watcher {
	bool (*due)(struct task_struct *task, struct pnotify_subscriber *sub);
	void (*exec)(struct task_struct *task);
};

int job_register_exec_watcher(struct job_exec_watcher *watcher);
void job_unregister_exec_watcher(struct job_exec_watcher *watcher);

/* The JID, id and owner of @task's job; false if it is in none. */
bool job_task_job(struct task_struct *task, u64 *jid, u64 *id, kuid_t *owner);

/*
 * Whether the job @jid, @id has not ended.  Once it returns false, the job's
 * JOB_EVENT_END notifiers have run or are about to: a caller that creates
 * something for the job under a lock its JOB_EVENT_END notifier takes, only
 * after this returned true, cannot miss the end.
 */
bool job_alive(u64 jid, u64 id);

/*
 * Fills @info (include/uapi/job.h) for the live job @info->jid, as seen from
 * the caller's namespaces, as JOB_GETINFO does; -ENODATA if there is none.
 */
int job_get_info(struct job_info *info);

#endif /* _JOB_KERNEL_H */
