// SPDX-License-Identifier: GPL-2.0
/*
 * job: kill and wait.  JOB_KILLJID signals every process of a job; a child
 * forked meanwhile gets the signal too, whichever way its fork overlaps the
 * kill (see job_ioc_killjid()).  JOB_WAITJID waits for a job's end.
 */
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <uapi/job.h>
#include "job_internal.h"

/* The stop signals, as bits sig - 1 of a mask. */
#define JOB_STOP_BITS (BIT_ULL(SIGSTOP - 1) | BIT_ULL(SIGTSTP - 1) | \
		       BIT_ULL(SIGTTIN - 1) | BIT_ULL(SIGTTOU - 1))

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
 * The signals of the killjids still sending, which took their list of
 * processes before the new process @child joined, that their senders could
 * have sent it: kill(2)'s rule and the sender's pid namespace (the child's
 * pid is set, not yet attached).  Of a stop and a SIGCONT, only the later
 * counts.  job->lock held, in the fork hook.
 */
u64 job_missed_signals(struct job *job, struct task_struct *child)
{
	u32 stop_seq = 0, cont_seq = 0;
	bool stop = false, cont = false;
	struct job_kill *k;
	u64 missed = 0;

	lockdep_assert_held(&job->lock);
	list_for_each_entry(k, &job->kills, link) {
		if (!job_kill_permitted(k, child) ||
		    !pid_nr_ns(task_pid(child), k->ns))
			continue;
		missed |= BIT_ULL(k->sig - 1);
		if (k->sig == SIGCONT && (!cont || (s32)(k->seq - cont_seq) > 0)) {
			cont = true;
			cont_seq = k->seq;
		} else if ((BIT_ULL(k->sig - 1) & JOB_STOP_BITS) &&
			   (!stop || (s32)(k->seq - stop_seq) > 0)) {
			stop = true;
			stop_seq = k->seq;
		}
	}
	if (stop && cont)
		missed &= (s32)(cont_seq - stop_seq) > 0 ?
			  ~JOB_STOP_BITS : ~BIT_ULL(SIGCONT - 1);
	return missed;
}

long job_ioc_waitjid(void *arg)
{
	struct job_waitjid *req = arg;
	struct job *job;
	int err;

	if (req->options)
		return -EINVAL;
	job = job_get(req->jid);
	if (!job)
		return -ENODATA;
	/*
	 * Not ->ended: the last member's exit hook sets it, and its exit
	 * then ends the job, which a waiter must find ended.
	 */
	err = wait_event_interruptible(job->ended_wq, READ_ONCE(job->gone));
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
	struct job_member *m;
	bool listed = false;

	raw_spin_lock_irq(&job->lock);
	hlist_for_each_entry(m, &job->processes, link) {
		if (m->tgid == tgid) {
			listed = true;
			break;
		}
	}
	raw_spin_unlock_irq(&job->lock);
	return listed;
}

/*
 * True if sending @sig to @task's process dropped it as ignored (the
 * kernel's sig_ignored(), not exported; a stop's or SIGCONT's effect is not
 * dropped).  siglock held.
 */
static bool job_sig_dropped(struct task_struct *task, int sig)
{
	void __user *handler = task->sighand->action[sig - 1].sa.sa_handler;

	if (sig == SIGCONT || sig_kernel_stop(sig) ||
	    sigismember(&task->blocked, sig) ||
	    sigismember(&task->real_blocked, sig) || task->ptrace)
		return false;
	return handler == SIG_IGN ||
	       (handler == SIG_DFL && sig_kernel_ignore(sig));
}

/*
 * The kernel keeps, for each fork in flight in a process, the set of the
 * signals sent to several processes at once during that fork, and gives it
 * to the child (copy_process()'s "delayed" signals, those of kill(-pgrp)):
 * make @sig, just sent to @tgid, one of them.  A fork that began before the
 * send cannot have seen it; one that begins after has.  Of a stop and a
 * SIGCONT, the later wins, as prepare_signal() has it (killjids of a job
 * send one at a time); a signal the process ignores was dropped, and is
 * not handed on either.
 */
static void job_delay_for_forks(struct pid *tgid, int sig)
{
	struct multiprocess_signals *delayed;
	struct sighand_struct *sighand;
	struct task_struct *task;
	unsigned long flags;

	/*
	 * A fork in flight in a process that SIGKILL kills fails, as
	 * copy_process() checks for a fatal signal under the siglock the send
	 * took, or was past that check and has joined the job: its child is
	 * listed or missed.  Only a namespace's init (SIGNAL_UNKILLABLE, which
	 * copy_process() gives a child reaper) may survive it.
	 */
	if (sig == SIGKILL && !is_child_reaper(tgid))
		return;
	rcu_read_lock();
	task = pid_task(tgid, PIDTYPE_TGID);
	sighand = task ? rcu_dereference(task->sighand) : NULL;
	if (sighand) {
		/*
		 * The sighand slab is SLAB_TYPESAFE_BY_RCU: the lock stays a
		 * lock; whether it is still this task's is checked under it,
		 * as lock_task_sighand() (not exported) does.
		 */
		spin_lock_irqsave(&sighand->siglock, flags);
		if (sighand == rcu_access_pointer(task->sighand) &&
		    !job_sig_dropped(task, sig))
			hlist_for_each_entry(delayed, &task->signal->multiprocess,
					     node) {
				if (sig == SIGCONT)
					sigdelsetmask(&delayed->signal,
						      SIG_KERNEL_STOP_MASK);
				else if (sig_kernel_stop(sig))
					sigdelset(&delayed->signal, SIGCONT);
				sigaddset(&delayed->signal, sig);
			}
		spin_unlock_irqrestore(&sighand->siglock, flags);
	}
	rcu_read_unlock();
}

/*
 * kill_pid() for a process of @job.  A child joins in the fork hook, after
 * its tgid's TGID link and before its PID link is attached: in between it
 * cannot be found (-ESRCH).  Its fork cannot fail from there, but the
 * forking task can be held up (preempted on PREEMPT_RT, a descheduled
 * vCPU): wait for as long as the process is in that window and listed.  A
 * fatal signal ends the wait, but only after a while: a killjid made from
 * inside the job may have just sent the caller one.
 */
static int job_kill_process(struct job *job, struct pid *tgid, int sig,
			    bool priv)
{
	unsigned int tries = 0;
	int err;

	while ((err = kill_pid(tgid, sig, priv)) == -ESRCH &&
	       pid_has_task(tgid, PIDTYPE_TGID) &&
	       job_lists_process(job, tgid)) {
		if (++tries < 100) {
			cond_resched();
			continue;
		}
		if (tries >= 1000 && fatal_signal_pending(current))
			return -EINTR;
		usleep_range(100, 200);
	}
	if (!err && sig)
		job_delay_for_forks(tgid, sig);
	return err;
}

/*
 * Signals every process of the job that the caller's pid namespace can see,
 * once.  A child forked meanwhile cannot be escaped into: if its fork began
 * before the send to its parent, the kernel hands it the signal as one sent
 * during its fork (job_delay_for_forks()); if it joins after the list was
 * taken and before the kill ends, the fork hook makes the signal pending in
 * it (job_missed_signals()); otherwise its fork began after the send, it
 * joined after the kill, and was no member of the job the kill saw.
 *
 * A CAP_SYS_RESOURCE holder signals as the kernel.  The owner signals with
 * kill(2)'s permission checks: processes running as another user (a root
 * process started by su or sudo inside the job) are left alone, and r_val
 * counts the processes signalled; EPERM when there were some and none of
 * them could be.
 */
long job_ioc_killjid(void *arg)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct job_killjid *req = arg;
	int signalled = 0, refused = 0;
	unsigned int n = 0, cap, i;
	struct job_kill kill = {
		.sig = req->sig,
		.priv = job_privileged(),
		.uid = current_uid(),
		.euid = current_euid(),
		.ns = ns,
	};
	struct job_member *m;
	struct pid **tgids;
	struct job *job;

	if (req->sig < 0 || req->sig > _NSIG)
		return -EINVAL;
	job = job_get(req->jid);
	if (!job)
		return -ENODATA;
	if (!kill.priv && !job_is_owner(job)) {
		job_put(job);
		return -EPERM;
	}
	if (mutex_lock_killable(&job->kill_lock)) {
		job_put(job);
		return -EINTR;
	}
	tgids = job_lock_with_room(job, &job->nr_processes, UINT_MAX,
				   sizeof(*tgids), &cap);
	if (!tgids) {
		mutex_unlock(&job->kill_lock);
		job_put(job);
		return -ENOMEM;
	}
	/* The initial namespace sees every process. */
	hlist_for_each_entry(m, &job->processes, link)
		if (ns == &init_pid_ns || pid_nr_ns(m->tgid, ns))
			tgids[n++] = get_pid(m->tgid);
	if (req->sig) {
		kill.seq = ++job->kill_seq;
		list_add_tail(&kill.link, &job->kills);
	}
	raw_spin_unlock_irq(&job->lock);
	/*
	 * Oldest first, as they joined (the list holds the newest first):
	 * siblings forked from one process then tear down their shared
	 * mappings in the order they were made, which costs the anon_vma
	 * interval trees least (newest first, a kill of 1,000 ran about
	 * 0.15% more instructions).
	 */
	for (i = n; i-- > 0;) {
		int err = job_kill_process(job, tgids[i], req->sig, kill.priv);

		if (!err)
			signalled++;
		else if (err == -EPERM)
			refused++;
		put_pid(tgids[i]);
	}
	kvfree(tgids);
	if (req->sig) {
		raw_spin_lock_irq(&job->lock);
		list_del(&kill.link);
		raw_spin_unlock_irq(&job->lock);
	}
	mutex_unlock(&job->kill_lock);
	job_put(job);
	if (refused && !signalled)
		return -EPERM;
	req->r_val = signalled;
	return 0;
}
