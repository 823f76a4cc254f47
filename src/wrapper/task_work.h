/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task_work_add() notification modes across kernel versions: before 5.11 the
 * third argument was a bool (true: notify on resume).
 */
#ifndef _PNOTIFY_WRAPPER_TASK_WORK_H
#define _PNOTIFY_WRAPPER_TASK_WORK_H

#include <linux/version.h>
#include <linux/task_work.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define PN_TWA_RESUME TWA_RESUME
#define PN_TWA_NONE TWA_NONE
#else
#define PN_TWA_RESUME true
#define PN_TWA_NONE false
#endif

#endif /* _PNOTIFY_WRAPPER_TASK_WORK_H */
