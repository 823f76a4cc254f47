/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which tasks can be followed, across kernel versions.
 */
#ifndef _PNOTIFY_WRAPPER_SCHED_H
#define _PNOTIFY_WRAPPER_SCHED_H

#include <linux/sched.h>

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

#endif /* _PNOTIFY_WRAPPER_SCHED_H */
