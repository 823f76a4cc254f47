/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which tasks can be followed, and what a hook may read of a process,
 * across kernel versions.
 */
#ifndef _PNOTIFY_WRAPPER_SCHED_H
#define _PNOTIFY_WRAPPER_SCHED_H

#include <linux/sched.h>
#include <linux/seqlock.h>

/* Kernel-internal workers forked from user tasks never return to user space. */
#ifdef PF_USER_WORKER
#define PN_PF_NOT_USER (PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)
#else
#define PN_PF_NOT_USER (PF_KTHREAD | PF_IO_WORKER)
#endif

/* True for tasks whose task works run on their way to user space. */
static inline bool pn_task_is_user(const struct task_struct *task)
{
	return !(READ_ONCE(task->flags) & PN_PF_NOT_USER);
}

/*
 * The sequence of @sl as a reader that may neither wait nor lock reads
 * it, in a hook: odd while a writer is in.  (read_seqbegin() waits for the
 * writer, taking its lock on PREEMPT_RT.)  seqlock_t has had this layout
 * since 5.9.
 */
static inline unsigned int pn_read_seqbegin_nowait(const seqlock_t *sl)
{
	/*
	 * Pairs with the writer's smp_wmb() before its end's increment:
	 * what it wrote is read after.
	 */
	return smp_load_acquire(&sl->seqcount.seqcount.sequence);
}

#endif /* _PNOTIFY_WRAPPER_SCHED_H */
