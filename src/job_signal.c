// SPDX-License-Identifier: GPL-2.0
/*
 * job: kill and wait.  JOB_KILLJID signals every process of a job, and the
 * fork hook replays to the children forked meanwhile the signals they
 * missed (job_missed_signals()); JOB_WAITJID waits for a job's end.
 */
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <uapi/job.h>
#include "job_internal.h"

/* The stop signals, as bits sig - 1 of a mask. */
#define JOB_STOP_BITS (BIT_ULL(SIGSTOP - 1) | BIT_ULL(SIGTSTP - 1) | \
		       BIT_ULL(SIGTTIN - 1) | BIT_ULL(SIGTTOU - 1))

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
u64 job_missed_signals(struct job *job, struct job_member *parent,
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
long job_ioc_killjid(void *arg)
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
