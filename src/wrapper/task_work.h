/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task_work_add() notification modes across kernel versions: before 5.10 the
 * third argument was a bool (true: notify on resume), and there was no
 * TWA_SIGNAL to interrupt a sleep for the work; 5.10 has TWA_NONE,
 * TWA_RESUME and TWA_SIGNAL (an int, an enum in 5.11 and in 5.10's stable
 * releases).  And the cancelling of a queued work, which the kernel does not
 * export.
 */
#ifndef _PNOTIFY_WRAPPER_TASK_WORK_H
#define _PNOTIFY_WRAPPER_TASK_WORK_H

#include <linux/version.h>
#include <linux/sched.h>
#include <linux/task_work.h>

/*
 * The hooks queue works with preemption disabled, where on PREEMPT_RT
 * nothing may allocate; 6.12's task_work_add() has KASAN record the queuing
 * stack, which may allocate, unless told not to (6.13 never allocates).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define PN_TWAF_NO_ALLOC TWAF_NO_ALLOC
#else
#define PN_TWAF_NO_ALLOC 0
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 10, 0)
#define PN_TWA_RESUME (TWA_RESUME | PN_TWAF_NO_ALLOC)
#define PN_TWA_NONE (TWA_NONE | PN_TWAF_NO_ALLOC)
#define PN_TWA_SIGNAL (TWA_SIGNAL | PN_TWAF_NO_ALLOC)
#else
#define PN_TWA_RESUME true
#define PN_TWA_NONE false
#define PN_TWA_SIGNAL true
#endif

/*
 * Takes the first of @task's queued works that @match accepts off its list
 * and returns it, or NULL.  task_work_cancel_match() (task_work_cancel()
 * before 5.11) is not exported; this follows its protocol, the same from
 * 4.x to 6.12: the list is edited under task->pi_lock with cmpxchg, and
 * task_work_run() takes pi_lock once it has taken the whole list, before it
 * runs any of it, so a work is either taken here or run there.
 */
static inline struct callback_head *
pn_task_work_cancel(struct task_struct *task,
		    bool (*match)(struct callback_head *work))
{
	struct callback_head **pprev = &task->task_works;
	struct callback_head *work;
	unsigned long flags;

	raw_spin_lock_irqsave(&task->pi_lock, flags);
	work = READ_ONCE(*pprev);
	while (work) {
		if (!match(work)) {
			pprev = &work->next;
			work = READ_ONCE(*pprev);
			continue;
		}
		if (cmpxchg(pprev, work, work->next) == work)
			break;
		/* A work added before it, or the list taken to run: again. */
		work = READ_ONCE(*pprev);
	}
	raw_spin_unlock_irqrestore(&task->pi_lock, flags);
	return work;
}

#endif /* _PNOTIFY_WRAPPER_TASK_WORK_H */
